"""Building an 835 remittance for a claim from its adjustments: shared by the seed world and the
environment generator, so the sandbox and the training tasks compute paid amounts one way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from adapters.rcm.models import Adjustment, Claim, ProviderAdjustment, RemitLine, Remittance

AdjSpec = tuple[str, str, float]
"""(group code, CARC, amount) of one line adjustment."""


def build_remittance(
    claim: Claim,
    *,
    remittance_id: str,
    produced: date,
    filing_indicator: str,
    adjustments: Mapping[int, Sequence[AdjSpec]],
    remarks: Mapping[int, tuple[str, ...]] | None = None,
    paid: Mapping[int, float] | None = None,
) -> Remittance:
    """An 835 for `claim`: each line pays its charge less its adjustments, unless `paid` says."""
    lines = []
    for line in claim.lines:
        adj = tuple(
            Adjustment(group_code=g, reason_code=c, amount=a)
            for g, c, a in adjustments.get(line.line_number, [])
        )
        line_paid = (paid or {}).get(line.line_number, round(line.charge - sum(a.amount for a in adj), 2))
        lines.append(
            RemitLine(
                line_number=line.line_number,
                procedure_code=line.procedure_code,
                modifiers=line.modifiers,
                charge=line.charge,
                paid=line_paid,
                units=line.units,
                service_date=line.service_date,
                adjustments=adj,
                remark_codes=(remarks or {}).get(line.line_number, ()),
            )
        )
    paid_total = round(sum(x.paid for x in lines), 2)
    patient = round(sum(a.amount for x in lines for a in x.adjustments if a.group_code == "PR"), 2)
    return Remittance(
        remittance_id=remittance_id,
        claim_id=claim.claim_id,
        payer_id=claim.payer_id,
        payer_claim_control_number=claim.payer_claim_control_number or "",
        claim_status_code="4" if paid_total == 0 and patient == 0 else "1",
        total_charge=claim.total_charge,
        paid_amount=paid_total,
        patient_responsibility_amount=patient,
        claim_filing_indicator=filing_indicator,
        production_date=produced,
        payment_method="ACH" if paid_total > 0 else "NON",
        patient_first_name=claim.patient_first_name,
        patient_last_name=claim.patient_last_name,
        member_id=claim.member_id,
        lines=tuple(lines),
    )


def _negated(remittance: Remittance, remittance_id: str, produced: date, trace: str) -> Remittance:
    """The reversal (CLP02 22) of an earlier claim payment: every amount negated, units kept."""

    def flip(adjustments: tuple[Adjustment, ...]) -> tuple[Adjustment, ...]:
        return tuple(a.model_copy(update={"amount": -a.amount}) for a in adjustments)

    lines = tuple(
        line.model_copy(
            update={
                "charge": -line.charge,
                "paid": -line.paid,
                "adjustments": flip(line.adjustments),
                "remark_codes": (),
            }
        )
        for line in remittance.lines
    )
    return remittance.model_copy(
        update={
            "remittance_id": remittance_id,
            "claim_status_code": "22",
            "total_charge": -remittance.total_charge,
            "paid_amount": -remittance.paid_amount,
            "patient_responsibility_amount": -remittance.patient_responsibility_amount,
            "production_date": produced,
            "claim_adjustments": flip(remittance.claim_adjustments),
            "lines": lines,
            "trace_number": trace,
            "provider_adjustments": (),
        }
    )


def reversal_and_correction(
    claim: Claim,
    earlier: Remittance,
    *,
    trace: str,
    produced: date,
    adjustments: Mapping[int, Sequence[AdjSpec]],
    remarks: Mapping[int, tuple[str, ...]] | None = None,
) -> tuple[Remittance, Remittance]:
    """One 835 that takes back `earlier` (a reversal, CLP02 22, every amount negated) and pays the
    claim again as corrected (`adjustments`). When the correction pays less than the reversal takes
    back, the check cannot cover the difference: a negative forwarding balance (PLB FB, referencing
    the claim's control number) carries it to a later 835, so the check is zero. The two payments
    are `<trace>-1` and `<trace>-2`, as the 835 parser names them."""
    corrected = build_remittance(
        claim,
        remittance_id=f"{trace}-2",
        produced=produced,
        filing_indicator=earlier.claim_filing_indicator,
        adjustments=adjustments,
        remarks=remarks,
    )
    net = round(corrected.paid_amount - earlier.paid_amount, 2)
    method = corrected.payment_method if net > 0 else "NON"
    reversal = _negated(earlier, f"{trace}-1", produced, trace).model_copy(update={"payment_method": method})
    forwarded = (
        (ProviderAdjustment(reason_code="FB", reference=earlier.payer_claim_control_number, amount=net),)
        if net < 0
        else ()
    )
    corrected = corrected.model_copy(
        update={
            "payment_method": method,
            "trace_number": trace,
            "provider_adjustments": forwarded,
        }
    )
    return reversal, corrected
