"""Builders for seed claims (837), their remittances (835) and documents."""

from __future__ import annotations

from datetime import date

from adapters.rcm.era import AdjSpec, build_remittance
from adapters.rcm.filing import filed_claim
from adapters.rcm.models import (
    Acknowledgment,
    Claim,
    ClaimStatus,
    Document,
    DocumentKind,
    Remittance,
    ServiceLine,
)
from adapters.rcm.seed.base import BILLING_NPI, DR_ORTIZ, PAYERS
from adapters.rcm.seed.people import BY_ID


def line(
    n: int, code: str, charge: float, dos: date, mods: tuple[str, ...] = (), pos: str = "11"
) -> ServiceLine:
    return ServiceLine(
        line_number=n,
        procedure_code=code,
        modifiers=mods,
        charge=charge,
        place_of_service=pos,
        service_date=dos,
    )


def claim(
    claim_id: str,
    patient_id: str,
    payer_id: str,
    member_id: str,
    dx: tuple[str, ...],
    lines: tuple[ServiceLine, ...],
    submitted: date,
    status: ClaimStatus,
    accepted: date | None = None,
    rendering: str = DR_ORTIZ,
    auth: str | None = None,
) -> Claim:
    return filed_claim(
        claim_id=claim_id,
        patient=BY_ID[patient_id],
        payer_id=payer_id,
        member_id=member_id,
        billing_npi=BILLING_NPI,
        rendering_npi=rendering,
        payer_claim_control_number=f"{payer_id}25{claim_id[-4:]}00",
        diagnoses=dx,
        lines=lines,
        submitted=submitted,
        status=status,
        accepted=accepted,
        prior_auth_number=auth,
    )


# line adjustments: per line number, a list of (group, carc, amount); remarks per line number.
def remit(
    claim: Claim,
    produced: date,
    adjustments: dict[int, list[AdjSpec]],
    remarks: dict[int, tuple[str, ...]] | None = None,
) -> Remittance:
    payer = next(p for p in PAYERS if p.payer_id == claim.payer_id)
    return build_remittance(
        claim,
        remittance_id=f"ERA{claim.claim_id[-4:]}{produced:%m%d}",
        produced=produced,
        filing_indicator=payer.claim_filing_indicator,
        adjustments=adjustments,
        remarks=remarks,
    )


def denied(
    claim: Claim, produced: date, carc: str, remarks: tuple[str, ...] = (), group: str = "CO"
) -> Remittance:
    adj = {line.line_number: [(group, carc, line.charge)] for line in claim.lines}
    return remit(claim, produced, adj, {1: remarks} if remarks else None)


def rejected(claim: Claim, day: date, why: str) -> Claim:
    """The claim as the payer's 277CA rejected it at the front end: no control number, status A7."""
    ack = Acknowledgment(
        action="rejected", ack_date=day, status_category_code="A7", message=f"rejected: {why}"
    )
    return claim.model_copy(
        update={"status": "rejected", "payer_claim_control_number": None, "acknowledgments": (ack,)}
    )


def doc(
    doc_id: str,
    patient_id: str,
    claim_id: str | None,
    kind: DocumentKind,
    title: str,
    day: date,
    text: str,
    signed: bool = True,
    codes: tuple[str, ...] = (),
    reason: str = "",
) -> Document:
    return Document(
        document_id=doc_id,
        patient_id=patient_id,
        claim_id=claim_id,
        kind=kind,
        title=title,
        document_date=day,
        signed=signed,
        procedure_codes=codes,
        noncoverage_reason=reason,
        text=text,
    )
