"""Work records the agent's actions create: authorizations (278), appeals, write-offs, patient
transfers, escalations, and compliance violations.

An outcome verifier diffs these collections between the agent's final world and the gold one.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from adapters.rcm.models import AuthDecision
from schemas.base import Contract

AppealBasis = Literal[
    "medical_necessity",
    "timely_filing",
    "authorization",
    "coding",
    "underpayment",
    "prompt_pay_interest",
    "other",
]
WriteOffReason = Literal[
    "contractual",
    "timely_filing",
    "no_authorization",
    "not_medically_necessary",
    "bundled",
    "small_balance",
    "administrative",
]
TransferReason = Literal[
    "deductible", "coinsurance", "copay", "non_covered_with_waiver", "coverage_terminated", "other"
]
EscalationQueue = Literal["supervisor", "credentialing", "coding", "billing", "compliance"]
RecommendedAction = Literal[
    "write_off",
    "appeal",
    "replacement_claim",
    "retro_authorization",
    "bill_other_payer",
    "patient_responsibility",
    "close",
    "review",
    "refund",
    "offset",
]
CloseReason = Literal[
    "duplicate_of_paid_original", "duplicate_of_original_in_process", "paid_as_expected", "no_action_needed"
]
Urgency = Literal["standard", "expedited"]
ViolationKind = Literal["patient_billed_on_co_adjustment", "patient_billed_before_secondary"]


class Authorization(Contract):
    """A prior- or retro-authorization (278 request and the payer's decision)."""

    auth_id: str
    """Request id (the 278 trace)."""
    patient_id: str
    """Patient the services are for."""
    payer_id: str
    """Payer asked to authorize."""
    claim_id: str | None = None
    """Claim the request was made for, when it was made while working a claim."""
    procedure_codes: tuple[str, ...]
    """CPT/HCPCS codes requested."""
    diagnosis_codes: tuple[str, ...] = ()
    """ICD-10-CM codes supporting the request."""
    service_date: date
    """Date of service the request covers."""
    requested_date: date
    """Date the request was sent."""
    retro: bool = False
    """Whether the request was made after the date of service."""
    urgency: Urgency = "standard"
    """Standard (decision within 7 days) or expedited (72 hours)."""
    status: AuthDecision
    """pended, approved or denied."""
    auth_number: str | None = None
    """Authorization number to put on the claim (REF*G1), when approved."""
    decision_reason: str = ""
    """Payer's reason for the decision."""
    decision_date: date | None = None
    """Date the payer decided; None while pended."""
    expected_decision_date: date | None = None
    """Date a pended request will be decided by."""
    attachment_document_ids: tuple[str, ...] = ()
    """Clinical documents sent with the request."""


class Appeal(Contract):
    """A first-level appeal (reconsideration / redetermination) filed with a payer."""

    appeal_id: str
    """Appeal id."""
    claim_id: str
    """Appealed claim."""
    payer_id: str
    """Payer the appeal went to."""
    basis: AppealBasis
    """Ground of the appeal."""
    reason: str
    """The appeal letter's argument, as written by the agent."""
    attachment_document_ids: tuple[str, ...] = ()
    """Documents attached (records, letter of medical necessity, proof of timely filing)."""
    filed_date: date
    """Date the appeal was filed."""
    deadline: date
    """Last day the payer accepted an appeal for this denial."""
    decision_due_date: date
    """Date by which the payer should decide (60 days after filing)."""
    status: Literal["submitted"] = "submitted"
    """Status; decisions arrive later as outcomes."""


class WriteOff(Contract):
    """An amount taken off the claim's insurance balance."""

    write_off_id: str
    """Adjustment id in the practice-management system."""
    claim_id: str
    """Claim written off against."""
    amount: float
    """Amount in USD."""
    reason_code: WriteOffReason
    """Why the amount is written off."""
    note: str = ""
    """Free-text note."""
    posted_date: date
    """Date posted."""


class PatientTransfer(Contract):
    """An amount moved from the insurance balance to the patient's balance (patient billed)."""

    transfer_id: str
    """Transfer id."""
    claim_id: str
    """Claim the amount came from."""
    patient_id: str
    """Patient now billed."""
    amount: float
    """Amount in USD."""
    reason: TransferReason
    """Stated reason for billing the patient."""
    non_billable_amount: float = 0.0
    """Part of `amount` the remittance did not make patient-billable (a contractual amount)."""
    note: str = ""
    """Account note."""
    posted_date: date
    """Date posted."""


class Violation(Contract):
    """A compliance breach the system recorded, e.g. a patient billed for a CO adjustment."""

    kind: ViolationKind
    """What was breached: the patient billed for a contractual (CO) amount, or for a share an active
    secondary payer should see first."""
    claim_id: str
    """Claim concerned."""
    amount: float
    """Amount involved in USD."""
    record_id: str
    """Id of the record (transfer) that caused it."""
    occurred_date: date
    """Date it happened."""


class Escalation(Contract):
    """A hand-off to a human work queue with the agent's recommendation."""

    escalation_id: str
    """Escalation id."""
    claim_id: str
    """Claim handed off."""
    queue: EscalationQueue
    """Work queue that receives it."""
    recommended_action: RecommendedAction
    """What the agent recommends the human do."""
    amount: float | None = None
    """Amount the recommendation concerns (e.g. the write-off), when any."""
    reason: str
    """Why a human is needed."""
    created_date: date
    """Date of the hand-off."""
