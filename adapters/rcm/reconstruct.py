"""A world snapshot rebuilt from what the live system answered during one episode. Pure.

Every entity the episode read becomes an entity of the world as it stood when first read, before
any of the episode's writes changed it; whatever was never read is made up only as far as the
reads that were made need it (a payer's default rules, a provider's name). Ids the episode's writes
were issued (a replacement claim, an appeal) set the world's counters, so the sim issues the same
ids again, and are left out of the world. Input is the episode with surrogates in place of PHI.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Literal

from adapters.drafting.recording import RecordedEpisode, RecordingError
from adapters.rcm.models import (
    Address,
    Adjustment,
    Claim,
    Coverage,
    Document,
    Patient,
    Payer,
    Practice,
    Provider,
    RemitLine,
    Remittance,
)
from adapters.rcm.records import Authorization
from adapters.rcm.world import ID_PREFIX, World
from adapters.surrogates import Surrogates
from schemas.tools import ToolOutcome

_ISSUED = re.compile(r"^(CLM-R|PCN|AUTH-|PA|APL-|WO-|PT-|ESC-)(\d{5,})$")
_KIND_OF_PREFIX = {prefix: kind for kind, prefix in ID_PREFIX.items()}
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_WRITES = frozenset(
    {
        "submit_replacement_claim",
        "submit_new_claim",
        "submit_appeal",
        "request_authorization",
        "bill_other_payer",
        "transfer_to_patient_responsibility",
        "post_write_off",
        "close_claim",
        "escalate_to_human",
    }
)
_STAMPED = frozenset(
    {"filed_date", "posted_date", "requested_date", "created_date", "ack_date", "submitted_date"}
)
"""Fields a write stamps with the world's today."""
_PAYER_KIND: dict[str, Literal["medicare", "medicaid", "commercial"]] = {
    "MB": "medicare",
    "MA": "medicare",
    "MC": "medicaid",
}


class _Builder:
    def __init__(self, episode: RecordedEpisode, surrogates: Surrogates) -> None:
        self.episode = episode
        self.surrogates = surrogates
        self.claims: dict[str, Claim] = {}
        self.remits: dict[str, Remittance] = {}
        self.payers: dict[str, Payer] = {}
        self.payer_names: dict[str, str] = {}
        self.filing: dict[str, str] = {}
        self.coverages: dict[str, Coverage] = {}
        self.documents: dict[str, Document] = {}
        self.auths: dict[str, Authorization] = {}
        self.balances: dict[str, float] = {}
        self.issued: dict[str, int] = {}
        self.issued_ids: set[str] = set()
        self.synthesized: set[str] = set()

    def issue(self, value: Any) -> None:
        match = _ISSUED.match(str(value)) if value is not None else None
        if match:
            kind = _KIND_OF_PREFIX[match.group(1)]
            number = int(match.group(2))
            self.issued[kind] = min(self.issued.get(kind, number), number)
            self.issued_ids.add(str(value))

    def read(self, name: str, args: dict[str, Any], result: dict[str, Any]) -> None:
        reader = getattr(self, f"_read_{name}", None)
        if reader is not None:
            reader(args, result)

    def wrote(self, name: str, result: dict[str, Any]) -> None:
        if name in ("submit_replacement_claim", "submit_new_claim", "bill_other_payer"):
            self.issue(result.get("claim_id"))
            self.issue(result.get("payer_claim_control_number"))
        elif name == "submit_appeal":
            self.issue(result["appeal"]["appeal_id"])
        elif name == "request_authorization":
            self.issue(result["authorization"]["auth_id"])
            self.issue(result["authorization"].get("auth_number"))
        elif name == "post_write_off":
            self.issue(result["write_off"]["write_off_id"])
        elif name == "escalate_to_human":
            self.issue(result["escalation"]["escalation_id"])
        elif name == "transfer_to_patient_responsibility":
            self.issue(result["transfer_id"])
            before = round(float(result["patient_balance"]) - float(result["amount"]), 2)
            self.balances.setdefault(str(result["patient_id"]), before)

    # -- reads ------------------------------------------------------------------------------
    def _read_get_claim(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        claim = Claim.model_validate(result["claim"])
        if claim.claim_id in self.synthesized:  # a full read beats the copy `find_original_claim` made
            self.synthesized.discard(claim.claim_id)
            self.claims[claim.claim_id] = claim
        self.claims.setdefault(claim.claim_id, claim)
        self.payer_names.setdefault(claim.payer_id, str(result.get("payer_name", claim.payer_id)))

    def _read_get_remittance(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        for made_up in [r for r in self.remits if r == f"ERA-SYN-{result['claim_id']}"]:
            del self.remits[made_up]  # the payer's own remittance beats the one inferred from a lookup
        for view in result.get("remittances", []):
            self.payer_names.setdefault(view["payer_id"], view["payer_name"])
            self.filing.setdefault(view["payer_id"], view["claim_filing_indicator"])
            self.remits.setdefault(view["remittance_id"], _remittance(str(result["claim_id"]), view))

    def _read_get_payer_rules(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        payer_id = str(result["payer_id"])
        self.payers.setdefault(
            payer_id,
            Payer(
                payer_id=payer_id,
                name=result["name"],
                kind=result["kind"],
                claim_filing_indicator=self.filing.get(payer_id, "CI"),
                rules=result["rules"],
                # Dated changes as recorded; their bulletins are not, so they stand as published.
                rule_changes=tuple(
                    {**change, "bulletin_id": None} for change in result.get("rule_changes", [])
                ),
            ),
        )

    def _read_check_eligibility(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        patient_id = result.get("patient_id")
        if not patient_id:
            return
        for view in [*result.get("coverages", []), *result.get("other_coverage", [])]:
            self.payer_names.setdefault(view["payer_id"], view["payer_name"])
            coverage_id = f"COV-{view['payer_id']}-{patient_id}-{view['coverage_start']}"
            self.coverages.setdefault(
                coverage_id,
                Coverage(
                    coverage_id=coverage_id,
                    patient_id=patient_id,
                    payer_id=view["payer_id"],
                    member_id=view["member_id"],
                    group_number=view["group_number"],
                    plan_name=view["plan_name"],
                    subscriber_first_name=view["subscriber_first_name"],
                    subscriber_last_name=view["subscriber_last_name"],
                    subscriber_birth_date=view["subscriber_birth_date"],
                    relationship=view["relationship"],
                    start_date=view["coverage_start"],
                    end_date=view["coverage_end"],
                    cob_order=view["cob_order"],
                ),
            )

    def _read_get_documents(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        owner = self.claims.get(str(result["claim_id"]))
        for summary in result.get("documents", []):
            self.documents.setdefault(
                summary["document_id"],
                Document(
                    document_id=summary["document_id"],
                    patient_id=owner.patient_id if owner else "",
                    claim_id=summary["claim_id"],
                    kind=summary["kind"],
                    title=summary["title"],
                    document_date=summary["document_date"],
                    signed=summary["signed"],
                    text=str(self.surrogates.of("text", f"unread:{summary['document_id']}")),
                ),
            )

    def _read_read_document(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        document = Document.model_validate(result["document"])
        self.documents[document.document_id] = document  # the full text beats an index entry

    def _read_get_authorizations(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        for row in result.get("authorizations", []):
            auth = Authorization.model_validate(row)
            if auth.auth_id not in self.issued_ids:
                self.auths.setdefault(auth.auth_id, auth)

    def _read_find_original_claim(self, args: dict[str, Any], result: dict[str, Any]) -> None:
        duplicate = self.claims.get(str(result["claim_id"]))
        original_id = result.get("original_claim_id")
        if not result.get("found") or duplicate is None or not original_id or original_id in self.claims:
            return
        self.synthesized.add(original_id)
        self.claims[original_id] = Claim.model_validate(
            {
                **duplicate.model_dump(mode="json"),
                "claim_id": original_id,
                "status": result["original_status"],
                "payer_claim_control_number": result["original_payer_claim_control_number"],
                "submitted_date": result["original_submitted_date"],
                "acknowledgments": [],
                "work_status": "open",
            }
        )
        codes = [str(c).split("-", 1) for c in result.get("original_adjustment_codes", [])]
        if not codes and not result.get("original_paid_amount"):
            return
        paid = float(result.get("original_paid_amount") or 0.0)
        charge = round(sum(line.charge for line in duplicate.lines), 2)
        remittance_id = f"ERA-SYN-{original_id}"
        self.remits.setdefault(
            remittance_id,
            Remittance(
                remittance_id=remittance_id,
                claim_id=original_id,
                payer_id=duplicate.payer_id,
                payer_claim_control_number=str(result["original_payer_claim_control_number"] or ""),
                claim_status_code="1" if paid > 0 else "4",
                total_charge=charge,
                paid_amount=paid,
                claim_filing_indicator=self.filing.get(duplicate.payer_id, "CI"),
                production_date=result["original_submitted_date"],
                payment_method="ACH" if paid > 0 else "NON",
                patient_first_name=duplicate.patient_first_name,
                patient_last_name=duplicate.patient_last_name,
                member_id=duplicate.member_id,
                claim_adjustments=tuple(
                    Adjustment(
                        group_code=group, reason_code=carc, amount=round(charge - paid, 2) if i == 0 else 0.0
                    )
                    for i, (group, carc) in enumerate(c for c in codes if len(c) == 2)
                ),
            ),
        )

    # -- the world ------------------------------------------------------------------------------
    def world(self) -> World:
        payload = self.episode.work_item.payload
        claims = {cid: c for cid, c in self.claims.items() if cid not in self.issued_ids}
        worked = claims.get(self.episode.work_item.item_id)
        payers = dict(self.payers)
        for payer_id in {*self.payer_names, *(c.payer_id for c in claims.values())} - payers.keys():
            filing = self.filing.get(payer_id, "CI")
            payers[payer_id] = Payer(
                payer_id=payer_id,
                name=self.payer_names.get(payer_id, payer_id),
                kind=_PAYER_KIND.get(filing, "commercial"),
                claim_filing_indicator=filing,
            )
        providers: dict[str, Provider] = {}
        for claim in claims.values():
            providers.setdefault(
                claim.billing_npi,
                Provider(npi=claim.billing_npi, name="Billing practice", kind="organization"),
            )
            providers.setdefault(
                claim.rendering_npi,
                Provider(npi=claim.rendering_npi, name=f"Clinician {claim.rendering_npi}", kind="individual"),
            )
        for recorded in self.episode.calls:  # a corrected claim the payer took had its NPI on file
            fix = recorded.call.arguments.get("corrections") if recorded.outcome is ToolOutcome.OK else None
            npi = fix.get("rendering_npi") if isinstance(fix, dict) else None
            if isinstance(npi, str) and npi:
                providers.setdefault(npi, Provider(npi=npi, name=f"Clinician {npi}", kind="individual"))
        return World(
            today=self.today(),
            practice=Practice(
                name="Practice (reconstructed)",
                billing_npi=worked.billing_npi if worked else "0000000000",
                tax_id="000000000",
                write_off_approval_limit=_limit(payload.get("write_off_approval_limit")),
            ),
            payers=payers,
            providers=providers,
            patients=self._patients(claims),
            coverages=self.coverages,
            claims=claims,
            remittances=self.remits,
            documents={
                d: doc.model_copy(update={"patient_id": doc.patient_id or _owner(doc, claims)})
                for d, doc in self.documents.items()
            },
            authorizations=self.auths,
            counters={kind: number - 1 for kind, number in self.issued.items()},
        )

    def today(self) -> date:
        """The work item's date; when capture tokenised the payload, the latest date a write was
        stamped with (writes are dated today), else the latest date any answer carried."""
        worked_on = str(self.episode.work_item.payload.get("worked_on", ""))
        if _ISO_DATE.match(worked_on):
            return date.fromisoformat(worked_on)
        written = [
            d for c in self.episode.calls if c.call.name in _WRITES for d in _dates(c.result, _STAMPED)
        ]
        seen = [d for c in self.episode.calls for d in _dates(c.result)]
        if not (written or seen):
            raise RecordingError("the episode shows no date: cannot tell the world's today")
        return max(written or seen)

    def _patients(self, claims: dict[str, Claim]) -> dict[str, Patient]:
        patients: dict[str, Patient] = {}
        for claim in claims.values():
            if claim.patient_id in patients:
                continue
            address = self.surrogates.of("address", f"address:{claim.patient_id}")
            patients[claim.patient_id] = Patient(
                patient_id=claim.patient_id,
                first_name=claim.patient_first_name,
                last_name=claim.patient_last_name,
                birth_date=claim.patient_birth_date,
                gender="U",
                address=Address.model_validate(address),
                balance=self.balances.get(claim.patient_id, 0.0),
            )
        return patients


def _limit(value: Any) -> float:
    """The office's write-off limit from the work item (the default when capture tokenised it)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return Practice.model_fields["write_off_approval_limit"].default  # type: ignore[no-any-return]


def _dates(value: Any, only: frozenset[str] | None = None, key: str = "") -> list[date]:
    """Every ISO date in `value` (under a key in `only`, when given)."""
    if isinstance(value, str) and _ISO_DATE.match(value) and (only is None or key in only):
        return [date.fromisoformat(value)]
    if isinstance(value, dict):
        return [d for k, v in value.items() for d in _dates(v, only, k)]
    if isinstance(value, list):
        return [d for v in value for d in _dates(v, only, key)]
    return []


def _owner(document: Document, claims: dict[str, Claim]) -> str:
    claim = claims.get(document.claim_id or "")
    return claim.patient_id if claim else ""


def _remittance(claim_id: str, view: dict[str, Any]) -> Remittance:
    def adjustments(rows: list[dict[str, Any]]) -> tuple[Adjustment, ...]:
        return tuple(
            Adjustment(group_code=a["group_code"], reason_code=a["reason_code"], amount=a["amount"])
            for a in rows
        )

    return Remittance(
        remittance_id=view["remittance_id"],
        claim_id=claim_id,
        payer_id=view["payer_id"],
        payer_claim_control_number=view["payer_claim_control_number"],
        claim_status_code=view["claim_status_code"],
        total_charge=view["total_charge"],
        paid_amount=view["paid_amount"],
        patient_responsibility_amount=view["patient_responsibility_amount"],
        claim_filing_indicator=view["claim_filing_indicator"],
        production_date=view["production_date"],
        payment_method=view["payment_method"],
        patient_first_name=view["patient_first_name"],
        patient_last_name=view["patient_last_name"],
        member_id=view["member_id"],
        claim_adjustments=adjustments(view["claim_adjustments"]),
        lines=tuple(
            RemitLine(
                line_number=line["line_number"],
                procedure_code=line["procedure_code"],
                modifiers=tuple(line["modifiers"]),
                charge=line["charge"],
                paid=line["paid"],
                units=line["units"],
                service_date=line["service_date"],
                adjustments=adjustments(line["adjustments"]),
                remark_codes=tuple(r["code"] for r in line["remarks"]),
            )
            for line in view["lines"]
        ),
    )


def reconstruct_world(episode: RecordedEpisode, surrogates: Surrogates) -> World:
    """The world the episode's answers imply, before its first write (ids it issued left out)."""
    builder = _Builder(episode, surrogates)
    for recorded in episode.calls:  # ids first: reads after a write may show what it created
        if recorded.outcome is ToolOutcome.OK and recorded.result is not None:
            builder.wrote(recorded.call.name, recorded.result)
    for recorded in episode.calls:
        if recorded.outcome is ToolOutcome.OK and recorded.result is not None:
            builder.read(recorded.call.name, recorded.call.arguments, recorded.result)
    return builder.world()
