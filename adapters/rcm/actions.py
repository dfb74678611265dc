"""Pure domain logic of the write tools (claim submissions live in `submissions`): validate
everything, then build the successor world.

Each function returns (result, new world) and leaves its input world untouched; a refusal raises
`DomainError` with a message that tells the agent what to do instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from pydantic import BaseModel

from adapters.rcm import args, ledger
from adapters.rcm.errors import DomainError
from adapters.rcm.guards import check_attachments, movable_amount, open_claim, returned_unadjudicated
from adapters.rcm.models import AuthDecision
from adapters.rcm.records import (
    Appeal,
    Authorization,
    Escalation,
    PatientTransfer,
    Violation,
    ViolationKind,
    WriteOff,
)
from adapters.rcm.results import (
    AppealResult,
    AuthorizationResult,
    CloseClaimResult,
    EscalationResult,
    TransferResult,
    WriteOffResult,
)
from adapters.rcm.world import Change, World

Outcome = tuple[BaseModel, World]

APPEAL_DECISION_DAYS = 60  # payers decide a first-level appeal within 60 days of receipt
_CLINICAL_KINDS = ("medical_record", "letter_of_medical_necessity", "operative_note")


def submit_appeal(world: World, a: args.SubmitAppealArgs) -> Outcome:
    claim = open_claim(world, a.claim_id)
    denial = world.latest_remittance(claim.claim_id)
    if denial is None:
        raise DomainError("no_denial_to_appeal", f"claim {claim.claim_id} has no remittance to appeal yet")
    returned = returned_unadjudicated(world, claim)
    if returned is not None:
        raise DomainError(
            "no_appeal_rights",
            f"claim {claim.claim_id} {returned}: an unprocessable claim has no appeal rights; send the "
            "correction as a new claim (submit_new_claim, frequency 1)",
        )
    pending = [x.appeal_id for x in world.appeals.values() if x.claim_id == claim.claim_id]
    if pending:
        raise DomainError(
            "appeal_pending", f"appeal {pending[0]} for claim {claim.claim_id} is already pending"
        )
    rules = world.payer(denial.payer_id).rules_on(claim.first_service_date)
    deadline = rules.appeal_deadline(denial.production_date)
    if world.today > deadline:
        received = (
            f"its presumed receipt {rules.notice_receipt_days} days after the remittance of "
            if rules.notice_receipt_days
            else "the remittance of "
        )
        raise DomainError(
            "appeal_window_closed",
            f"the appeal window for claim {claim.claim_id} closed on {deadline.isoformat()} "
            f"({rules.appeal_window_days} days after {received}{denial.production_date.isoformat()})",
            deadline=deadline.isoformat(),
        )
    attachments = check_attachments(world, claim.patient_id, a.attachment_document_ids)
    change = Change(world)
    appeal = Appeal(
        appeal_id=change.issue("appeal"),
        claim_id=claim.claim_id,
        payer_id=denial.payer_id,
        basis=a.basis,
        reason=a.reason,
        attachment_document_ids=attachments,
        filed_date=world.today,
        deadline=deadline,
        decision_due_date=world.today + timedelta(days=APPEAL_DECISION_DAYS),
    )
    change.put("appeals", appeal.appeal_id, appeal)
    return AppealResult(appeal=appeal), change.commit()


def _auth_decision(
    codes: Sequence[str], by_code: dict[str, AuthDecision], default: AuthDecision
) -> AuthDecision:
    decisions = [by_code.get(code, default) for code in codes]
    for severity in ("denied", "pended"):
        if severity in decisions:
            return severity
    return "approved"


def request_authorization(world: World, a: args.RequestAuthorizationArgs) -> Outcome:
    world.patient(a.patient_id)
    payer = world.payer(a.payer_id)
    if a.claim_id is not None:
        world.claim(a.claim_id)
    rules = payer.rules_on(a.service_date)
    retro = a.service_date < world.today
    days_late = (world.today - a.service_date).days
    if retro and days_late > rules.retro_auth_window_days:
        raise DomainError(
            "retro_auth_window_closed",
            f"{payer.name} accepts retro-authorization requests up to {rules.retro_auth_window_days} days "
            f"after the date of service (the rule in effect for a service on {a.service_date.isoformat()}); "
            f"this one is {days_late} days after",
        )
    attachments = check_attachments(world, a.patient_id, a.attachment_document_ids or [])
    urgency = a.urgency or "standard"
    decision = _auth_decision(a.procedure_codes, rules.auth_decision_by_code, rules.auth_decision)
    reason = {
        "approved": "meets clinical criteria",
        "pended": "pended for clinical review",
        "denied": "does not meet clinical criteria",
    }[decision]
    clinical = [d for d in attachments if world.documents[d].kind in _CLINICAL_KINDS]
    if decision == "approved" and rules.auth_requires_documentation and not clinical:
        decision, reason = "denied", "insufficient clinical documentation attached"
    change = Change(world)
    days = rules.expedited_decision_days if urgency == "expedited" else rules.standard_decision_days
    auth = Authorization(
        auth_id=change.issue("auth"),
        patient_id=a.patient_id,
        payer_id=a.payer_id,
        claim_id=a.claim_id,
        procedure_codes=tuple(a.procedure_codes),
        diagnosis_codes=tuple(a.diagnosis_codes),
        service_date=a.service_date,
        requested_date=world.today,
        retro=retro,
        urgency=urgency,
        status=decision,
        auth_number=change.issue("auth_number") if decision == "approved" else None,
        decision_reason=reason,
        decision_date=None if decision == "pended" else world.today,
        expected_decision_date=world.today + timedelta(days=days) if decision == "pended" else None,
        attachment_document_ids=attachments,
    )
    change.put("authorizations", auth.auth_id, auth)
    return AuthorizationResult(authorization=auth), change.commit()


def transfer_to_patient_responsibility(world: World, a: args.TransferToPatientArgs) -> Outcome:
    claim = open_claim(world, a.claim_id)
    amount, _ = movable_amount(world, claim, a.amount)
    already = ledger.transferred(world, claim.claim_id)
    billable = ledger.patient_billable(world, claim) - already
    excess = ledger.money(max(0.0, amount - max(0.0, billable)))
    # The part beyond what the patient would owe without a secondary is contractual (CO); the rest
    # of the excess is a share an active secondary payer must see first.
    contractual = ledger.money(
        max(0.0, amount - max(0.0, ledger.patient_billable(world, claim, before_secondary=True) - already))
    )
    secondary = ledger.next_payer(world, claim)
    if excess > ledger.EPSILON and world.practice.co_transfer_policy == "refuse":
        if contractual > ledger.EPSILON or secondary is None:
            raise DomainError(
                "co_transfer_refused",
                f"${excess:.2f} of this amount is a contractual (CO) adjustment and may not be billed to the patient",
            )
        raise DomainError(
            "secondary_payer_first",
            f"${excess:.2f} is the patient's share under the primary, which goes to the active secondary "
            f"({secondary.payer_id}) first: bill it with bill_other_payer, payer_sequence 'secondary'",
        )
    patient = world.patient(claim.patient_id)
    change = Change(world)
    transfer = PatientTransfer(
        transfer_id=change.issue("transfer"),
        claim_id=claim.claim_id,
        patient_id=patient.patient_id,
        amount=amount,
        reason=a.reason,
        non_billable_amount=excess if excess > ledger.EPSILON else 0.0,
        note=a.note or "",
        posted_date=world.today,
    )
    change.put("patient_transfers", transfer.transfer_id, transfer)
    new_balance = ledger.money(patient.balance + amount)
    change.put("patients", patient.patient_id, patient.model_copy(update={"balance": new_balance}))
    parts: tuple[tuple[ViolationKind, float], ...] = (
        ("patient_billed_on_co_adjustment", min(contractual, excess)),
        ("patient_billed_before_secondary", ledger.money(excess - min(contractual, excess))),
    )
    for kind, part in parts:
        if part > ledger.EPSILON:
            change.add_violation(
                Violation(
                    kind=kind,
                    claim_id=claim.claim_id,
                    amount=part,
                    record_id=transfer.transfer_id,
                    occurred_date=world.today,
                )
            )
    result = TransferResult(
        transfer_id=transfer.transfer_id,
        claim_id=claim.claim_id,
        patient_id=patient.patient_id,
        amount=amount,
        reason=a.reason,
        posted_date=world.today,
        patient_balance=new_balance,
    )
    return result, change.commit()


def post_write_off(world: World, a: args.PostWriteOffArgs) -> Outcome:
    claim = open_claim(world, a.claim_id)
    amount, balance = movable_amount(world, claim, a.amount)
    limit = world.practice.write_off_approval_limit
    # The limit is per claim, cumulative (splitting a write-off must not dodge the approval), and
    # counts discretionary write-offs only: a contractual adjustment at the contracted rate is not one.
    total = ledger.discretionary(world, claim, amount, a.reason_code)
    if total > limit + ledger.EPSILON:
        raise DomainError(
            "write_off_needs_approval",
            f"discretionary write-offs above ${limit:.2f} per claim need supervisor approval (contractual "
            f"adjustments up to ${ledger.contractual_allowance(world, claim):.2f} do not count); call "
            "escalate_to_human with queue 'supervisor', recommended_action 'write_off' and the amount instead",
            limit=limit,
        )
    change = Change(world)
    write_off = WriteOff(
        write_off_id=change.issue("write_off"),
        claim_id=claim.claim_id,
        amount=amount,
        reason_code=a.reason_code,
        note=a.note or "",
        posted_date=world.today,
    )
    change.put("write_offs", write_off.write_off_id, write_off)
    result = WriteOffResult(write_off=write_off, insurance_balance=ledger.money(balance - amount))
    return result, change.commit()


def escalate_to_human(world: World, a: args.EscalateArgs) -> Outcome:
    claim = world.claim(a.claim_id)
    change = Change(world)
    escalation = Escalation(
        escalation_id=change.issue("escalation"),
        claim_id=claim.claim_id,
        queue=a.queue,
        recommended_action=a.recommended_action,
        amount=ledger.money(a.amount) if a.amount is not None else None,
        reason=a.reason,
        created_date=world.today,
    )
    change.put("escalations", escalation.escalation_id, escalation)
    return EscalationResult(escalation=escalation), change.commit()


def close_claim(world: World, a: args.CloseClaimArgs) -> Outcome:
    claim = open_claim(world, a.claim_id)
    closed = claim.model_copy(update={"work_status": "closed", "closed_reason": a.reason})
    change = Change(world)
    change.put("claims", claim.claim_id, closed)
    result = CloseClaimResult(claim_id=claim.claim_id, work_status="closed", closed_reason=a.reason)
    return result, change.commit()
