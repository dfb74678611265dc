"""Pure domain logic: (world, args) → (result, new world). The read tools live here, the writes in
`actions`; `apply` dispatches by tool name for both backends (the sandbox runs it server-side).

No I/O, no clock, no randomness: ids come from the world's counters and dates from `world.today`.
Refusals raise `DomainError` before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from adapters.rcm import actions, args, bulletins, ledger, submissions
from adapters.rcm.codes import STATUS_CATEGORY
from adapters.rcm.models import Claim, Coverage
from adapters.rcm.results import (
    AuthorizationsResult,
    ClaimResult,
    ClaimStatusResult,
    CoverageView,
    DocumentResult,
    DocumentsResult,
    EligibilityResult,
    OriginalClaimResult,
    RemittanceResult,
)
from adapters.rcm.views import coverage_view, document_summary, remittance_view
from adapters.rcm.world import World

Outcome = tuple[BaseModel, World]
Logic = Callable[[World, Any], Outcome]

# 277 status category per claim status: what a 276 inquiry answers.
_CATEGORY: dict[str, str] = {
    "submitted": "A1",
    "accepted": "A2",
    "rejected": "A7",
    "pending": "P1",
    "paid": "F1",
    "partially_paid": "F1",
    "denied": "F2",
    "replaced": "F3",
    "voided": "F4",
    "resubmitted": "F2",
}


def get_claim(world: World, a: args.GetClaimArgs) -> Outcome:
    claim = world.claim(a.claim_id)
    result = ClaimResult(
        claim=claim,
        payer_name=world.payer(claim.payer_id).name,
        total_charge=claim.total_charge,
        insurance_balance=ledger.insurance_balance(world, claim),
    )
    return result, world


def get_remittance(world: World, a: args.GetRemittanceArgs) -> Outcome:
    world.claim(a.claim_id)
    views = [remittance_view(r, world.payer(r.payer_id).name) for r in world.remittances_for(a.claim_id)]
    return RemittanceResult(claim_id=a.claim_id, remittances=views), world


def get_claim_status(world: World, a: args.GetClaimStatusArgs) -> Outcome:
    claim = world.claim(a.claim_id)
    category = _CATEGORY[claim.status]
    if (
        claim.status == "resubmitted"
        and claim.acknowledgments
        and claim.acknowledgments[-1].action == "rejected"
    ):
        category = "A7"  # the payer still holds it as rejected; the new claim is another claim
    latest = world.latest_remittance(claim.claim_id)
    if category.startswith("F") and latest is not None:
        status_date = latest.production_date
    elif claim.acknowledgments:
        status_date = claim.acknowledgments[-1].ack_date
    else:
        status_date = claim.submitted_date
    result = ClaimStatusResult(
        claim_id=claim.claim_id,
        payer_id=claim.payer_id,
        payer_claim_control_number=claim.payer_claim_control_number,
        status_category_code=category,
        status_description=STATUS_CATEGORY[category],
        status_date=status_date,
        submitted_date=claim.submitted_date,
        total_charge=claim.total_charge,
        paid_amount=ledger.paid_total(world, claim.claim_id),
        acknowledgments=list(claim.acknowledgments),
    )
    return result, world


def check_eligibility(world: World, a: args.CheckEligibilityArgs) -> Outcome:
    if a.payer_id is not None:
        world.payer(a.payer_id)
    if a.member_id is not None:
        member = a.member_id.strip().upper()
        matches = [c for c in world.coverages.values() if c.member_id.upper() == member]
    else:
        first, last = (a.first_name or "").strip().lower(), (a.last_name or "").strip().lower()
        patients = {
            p.patient_id
            for p in world.patients.values()
            if p.first_name.lower() == first and p.last_name.lower() == last and p.birth_date == a.birth_date
        }
        matches = [c for c in world.coverages.values() if c.patient_id in patients]
    if a.payer_id is not None:
        matches = [c for c in matches if c.payer_id == a.payer_id]
    if not matches:
        reason = "AAA*72 invalid/missing subscriber id" if a.member_id else "AAA*75 subscriber not found"
        empty = EligibilityResult(
            found=False, message=reason, patient_id=None, coverages=[], other_coverage=[]
        )
        return empty, world
    order = {"primary": 0, "secondary": 1, "tertiary": 2}
    matches.sort(key=lambda c: (order[c.cob_order], c.payer_id, c.coverage_id))
    patient_id = matches[0].patient_id
    seen = {c.coverage_id for c in matches}
    others = []
    if a.payer_id is not None:
        # A 271 from one payer reports the other coverage it knows of (EB*R) on the date asked.
        others = [
            c
            for c in world.coverages.values()
            if c.patient_id == patient_id and c.coverage_id not in seen and c.active_on(a.service_date)
        ]
        others.sort(key=lambda c: (order[c.cob_order], c.payer_id, c.coverage_id))

    def view(c: Coverage) -> CoverageView:
        return coverage_view(c, world.payer(c.payer_id).name, c.active_on(a.service_date))

    active = any(c.active_on(a.service_date) for c in matches)
    message = (
        "active coverage on the date of service" if active else "coverage not active on the date of service"
    )
    result = EligibilityResult(
        found=True,
        message=message,
        patient_id=patient_id,
        coverages=[view(c) for c in matches],
        other_coverage=[view(c) for c in others],
    )
    return result, world


def _same_services(a: Claim, b: Claim) -> bool:
    key = sorted((line.procedure_code, line.service_date) for line in a.lines)
    return key == sorted((line.procedure_code, line.service_date) for line in b.lines)


def find_original_claim(world: World, a: args.FindOriginalClaimArgs) -> Outcome:
    claim = world.claim(a.claim_id)
    candidates = [
        c
        for c in world.claims.values()
        if c.claim_id != claim.claim_id
        and c.patient_id == claim.patient_id
        and c.payer_id == claim.payer_id
        and c.frequency_code == "1"
        and c.submitted_date <= claim.submitted_date
        and _same_services(c, claim)
    ]
    candidates.sort(key=lambda c: (c.submitted_date, c.claim_id))
    if not candidates:
        none = OriginalClaimResult(
            claim_id=claim.claim_id,
            found=False,
            original_claim_id=None,
            original_status=None,
            original_payer_claim_control_number=None,
            original_paid_amount=None,
            original_submitted_date=None,
            original_adjustment_codes=[],
        )
        return none, world
    original = candidates[0]
    latest = world.latest_remittance(original.claim_id)
    codes = (
        [f"{adj.group_code}-{adj.reason_code}" for _, adj in ledger.all_adjustments(latest)] if latest else []
    )
    result = OriginalClaimResult(
        claim_id=claim.claim_id,
        found=True,
        original_claim_id=original.claim_id,
        original_status=original.status,
        original_payer_claim_control_number=original.payer_claim_control_number,
        original_paid_amount=ledger.paid_total(world, original.claim_id),
        original_submitted_date=original.submitted_date,
        original_adjustment_codes=list(dict.fromkeys(codes)),
    )
    return result, world


def get_documents(world: World, a: args.GetDocumentsArgs) -> Outcome:
    claim = world.claim(a.claim_id)
    docs = [
        d
        for d in world.documents.values()
        if d.patient_id == claim.patient_id and d.claim_id in (None, claim.claim_id)
    ]
    docs.sort(key=lambda d: (d.document_date, d.document_id))
    return DocumentsResult(claim_id=claim.claim_id, documents=[document_summary(d) for d in docs]), world


def read_document(world: World, a: args.ReadDocumentArgs) -> Outcome:
    return DocumentResult(document=world.document(a.document_id)), world


def get_authorizations(world: World, a: args.GetAuthorizationsArgs) -> Outcome:
    claim = world.claim(a.claim_id)
    auths = [x for x in world.authorizations.values() if x.patient_id == claim.patient_id]
    auths.sort(key=lambda x: (x.service_date, x.auth_id))
    return AuthorizationsResult(claim_id=claim.claim_id, authorizations=auths), world


TOOL_LOGIC: dict[str, Logic] = {
    "get_claim": get_claim,
    "get_remittance": get_remittance,
    "get_claim_status": get_claim_status,
    "check_eligibility": check_eligibility,
    "find_original_claim": find_original_claim,
    "get_documents": get_documents,
    "read_document": read_document,
    "get_authorizations": get_authorizations,
    "get_payer_rules": bulletins.get_payer_rules,
    "get_payer_bulletins": bulletins.get_payer_bulletins,
    "submit_replacement_claim": submissions.submit_replacement_claim,
    "submit_new_claim": submissions.submit_new_claim,
    "submit_appeal": actions.submit_appeal,
    "request_authorization": actions.request_authorization,
    "bill_other_payer": submissions.bill_other_payer,
    "transfer_to_patient_responsibility": actions.transfer_to_patient_responsibility,
    "post_write_off": actions.post_write_off,
    "escalate_to_human": actions.escalate_to_human,
    "close_claim": actions.close_claim,
}


def apply(world: World, tool: str, arguments: BaseModel) -> Outcome:
    """Run `tool` over `world`; raises `DomainError` on refusal and `KeyError` for an unknown tool."""
    return TOOL_LOGIC[tool](world, arguments)
