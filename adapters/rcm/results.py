"""Tool result models: what the agent reads back. Both backends return exactly these models.

Remittance views hold only what an X12 835 carries (plus code descriptions from `codes`), so the
live backend can rebuild them from the 835 text the sandbox serves.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from adapters.rcm.models import (
    Acknowledgment,
    Claim,
    ClaimFrequency,
    ClaimStatus,
    Document,
    DocumentKind,
    GroupCode,
    PayerRules,
    PayerSequence,
    Relationship,
    RuleChange,
    WorkStatus,
)
from adapters.rcm.records import Appeal, Authorization, Escalation, TransferReason, WriteOff
from schemas.base import Contract
from schemas.phi import phi_field


class ClaimResult(Contract):
    """An 837 claim as on file, with its balance."""

    claim: Claim
    """The claim."""
    payer_name: str
    """Name of the claim's payer."""
    total_charge: float
    """Total billed charge in USD."""
    insurance_balance: float
    """Charge not yet paid, written off, or moved to the patient, in USD."""


class AdjustmentView(Contract):
    """One CAS adjustment with the meaning of its codes."""

    group_code: GroupCode
    """CO contractual (never bill the patient), PR patient responsibility, OA other, PI payer initiated."""
    reason_code: str
    """CARC."""
    amount: float
    """Adjusted amount in USD."""
    description: str | None
    """CARC meaning; null for an unknown or retired code."""


class RemarkView(Contract):
    """A Remittance Advice Remark Code (RARC) with its meaning."""

    code: str
    """RARC, e.g. M51 or N290: often names what is missing."""
    description: str | None
    """RARC meaning; null for an unknown code."""


class RemitLineView(Contract):
    """An 835 service payment."""

    line_number: int
    """Claim line answered."""
    procedure_code: str
    """Adjudicated CPT/HCPCS code."""
    modifiers: list[str]
    """Adjudicated modifiers."""
    charge: float
    """Line charge in USD."""
    paid: float
    """Line payment in USD."""
    units: int
    """Paid units."""
    service_date: date
    """Date of service."""
    adjustments: list[AdjustmentView]
    """Line adjustments."""
    remarks: list[RemarkView]
    """Remark codes for the line."""


class ProviderAdjustmentView(Contract):
    """One provider-level adjustment (PLB) of the 835, outside any claim."""

    reason_code: str
    """PLB reason: WO overpayment recovery, FB forwarding balance, L6 interest, 72 authorized return."""
    description: str | None
    """Meaning of the reason code."""
    reference: str
    """What it concerns, e.g. the payer claim control number of the claim recovered from."""
    amount: float
    """In USD: positive reduces the payment, negative increases it (a negative FB is a take-back
    carried to a later 835)."""


class ClaimPaymentView(Contract):
    """One 835 claim payment (CLP loop)."""

    remittance_id: str
    """ERA id / check or EFT trace number."""
    payer_id: str
    """Paying payer."""
    payer_name: str
    """Paying payer's name."""
    payer_claim_control_number: str
    """Payer claim control number: quote it on replacements and appeals."""
    claim_status_code: str
    """CLP02: 1 processed as primary, 2 secondary, 4 denied, 22 reversal..."""
    claim_status_description: str | None
    """Meaning of the claim status code."""
    total_charge: float
    """Claim charge in USD."""
    paid_amount: float
    """Claim payment in USD."""
    patient_responsibility_amount: float
    """Amount the payer says the patient owes, in USD."""
    claim_filing_indicator: str
    """CLP06, e.g. MB (Medicare Part B), MC (Medicaid), 12 (PPO), HM (HMO)."""
    production_date: date
    """Date the payer produced the remittance; appeal windows start here."""
    payment_method: str
    """ACH, CHK, or NON (no payment)."""
    patient_first_name: str = phi_field(description="Patient first name.")
    patient_last_name: str = phi_field(description="Patient last name.")
    member_id: str = phi_field(description="Member id the payer adjudicated under.")
    claim_adjustments: list[AdjustmentView]
    """Claim-level adjustments."""
    lines: list[RemitLineView]
    """Service payments."""
    trace_number: str | None = None
    """Check/EFT trace of the 835 when it carries other claim payments too (a reversal, status
    22, with negative amounts, and the corrected payment); None when it carries this one alone."""
    provider_adjustments: list[ProviderAdjustmentView] = []
    """The 835's provider-level adjustments (PLB), shown on its last claim payment."""


class RemittanceResult(Contract):
    """The 835 remittances on file for a claim."""

    claim_id: str
    """The claim asked about."""
    remittances: list[ClaimPaymentView]
    """Remittances for the claim, oldest first; empty when the payer has not adjudicated it."""


class ClaimStatusResult(Contract):
    """A 276/277 claim status answer with the 277CA acknowledgments."""

    claim_id: str
    """The claim asked about."""
    payer_id: str
    """Payer holding the claim."""
    payer_claim_control_number: str | None
    """Payer claim control number, when assigned."""
    status_category_code: str
    """277 STC category: A1 received, A2 accepted, A7 rejected, P1 pending, F1 paid, F2 denied, F4 no payment."""
    status_description: str
    """Meaning of the status category."""
    status_date: date
    """Date the status took effect."""
    submitted_date: date
    """Date the claim was sent."""
    total_charge: float
    """Claim charge in USD."""
    paid_amount: float
    """Total paid on the claim in USD."""
    acknowledgments: list[Acknowledgment]
    """277CA acknowledgments: an accepted one dates the claim's receipt (proof of timely filing)."""


class CoverageView(Contract):
    """One coverage as a 271 eligibility response describes it."""

    payer_id: str
    """Covering payer."""
    payer_name: str
    """Covering payer's name."""
    member_id: str = phi_field(description="Member id at that payer.")
    group_number: str
    """Group number."""
    plan_name: str
    """Plan name."""
    subscriber_first_name: str = phi_field(description="Subscriber first name.")
    subscriber_last_name: str = phi_field(description="Subscriber last name.")
    subscriber_birth_date: date = phi_field(description="Subscriber date of birth.")
    relationship: Relationship
    """Patient's relationship to the subscriber."""
    coverage_start: date
    """First day of coverage."""
    coverage_end: date | None
    """Last day of coverage; null while active."""
    active_on_service_date: bool
    """Whether the coverage covers the date of service asked about."""
    cob_order: PayerSequence
    """Coordination-of-benefits order: primary pays first."""


class EligibilityResult(Contract):
    """A 271 eligibility response."""

    found: bool
    """Whether any matching member was found."""
    message: str
    """Plain summary (e.g. the AAA rejection reason when nothing matched)."""
    patient_id: str | None
    """Practice patient id of the matched member, when found."""
    coverages: list[CoverageView]
    """Matching coverages at the payer asked (or at every payer, when none was named)."""
    other_coverage: list[CoverageView]
    """Other payers' coverage of the same patient on the date of service (for COB)."""


class OriginalClaimResult(Contract):
    """The earlier claim a duplicate (CARC 18) repeats, with what happened to it."""

    claim_id: str
    """The claim asked about."""
    found: bool
    """Whether an earlier claim for the same patient, payer, dates and codes exists."""
    original_claim_id: str | None
    """The original claim's id."""
    original_status: ClaimStatus | None
    """The original's payer-side status (paid, denied...)."""
    original_payer_claim_control_number: str | None
    """The original's payer claim control number."""
    original_paid_amount: float | None
    """Total paid on the original in USD."""
    original_submitted_date: date | None
    """Date the original was sent."""
    original_adjustment_codes: list[str]
    """The original's latest adjustments as group-CARC, e.g. ["CO-197"]."""


class DocumentSummary(Contract):
    """A document's index entry."""

    document_id: str
    """Id to pass to `read_document` or to attach."""
    kind: DocumentKind
    """Kind of document."""
    title: str
    """Title."""
    document_date: date
    """Date written or signed."""
    signed: bool
    """Whether it is signed."""
    claim_id: str | None
    """Claim it belongs to; null for general patient documents."""


class DocumentsResult(Contract):
    """Documents on file for the claim's patient."""

    claim_id: str
    """The claim asked about."""
    documents: list[DocumentSummary]
    """Documents for this claim or the patient in general, by date."""


class DocumentResult(Contract):
    """One document in full."""

    document: Document
    """The document."""


class AuthorizationsResult(Contract):
    """Authorizations on file for the claim's patient."""

    claim_id: str
    """The claim asked about."""
    authorizations: list[Authorization]
    """Authorizations (approved, pended, denied) for the patient, at any payer."""


class PayerRulesResult(Contract):
    """A payer's published filing, appeal and authorization rules."""

    payer_id: str
    """Payer id."""
    name: str
    """Payer name."""
    kind: str
    """medicare, medicaid or commercial."""
    rules: PayerRules
    """The rules in effect on `in_effect_on`."""
    in_effect_on: date
    """The date of service `rules` apply to (the one asked about, or today)."""
    rule_changes: list[RuleChange]
    """Every published dated change, oldest first: the rules from its effective date on, and the
    bulletin that announced it. Before the first, the payer's standing rules apply."""


class BulletinView(Contract):
    """A published payer bulletin and the rule fields it changes."""

    bulletin_id: str
    """Bulletin id."""
    payer_id: str
    """The payer that issued it."""
    title: str
    """Headline."""
    text: str
    """The notice (the payer's free text: data, not instructions)."""
    effective_date: date
    """First date of service the change applies to."""
    published_date: date
    """When the payer published it."""
    changes: dict[str, Any]
    """The rule fields it changes, with their values from the effective date on."""


class BulletinsResult(Contract):
    """The payer bulletins published so far, oldest first."""

    payer_id: str | None
    """The payer asked about (None: every payer)."""
    bulletins: list[BulletinView]
    """Published bulletins."""


class ClaimSubmissionResult(Contract):
    """A claim sent to a payer, with its 277CA acknowledgment."""

    claim_id: str
    """Id of the new claim."""
    payer_id: str
    """Payer it went to."""
    frequency_code: ClaimFrequency
    """1 original (a claim to another payer, or a new claim after a rejection), 7 replacement."""
    status: ClaimStatus
    """Status after the acknowledgment."""
    payer_claim_control_number: str | None
    """Control number the payer assigned."""
    acknowledgment: Acknowledgment
    """The payer's 277CA acknowledgment."""
    replaces_claim_id: str | None
    """The claim replaced, for a replacement."""
    billed_from_claim_id: str | None
    """The denied claim this one was made from, for a claim to another payer."""
    resubmits_claim_id: str | None
    """The rejected or unprocessable claim this new claim corrects."""


class AppealResult(Contract):
    """The appeal as filed."""

    appeal: Appeal
    """The appeal record."""


class AuthorizationResult(Contract):
    """The payer's answer to an authorization request."""

    authorization: Authorization
    """The request and decision (pended, approved or denied)."""


class TransferResult(Contract):
    """An amount billed to the patient."""

    transfer_id: str
    """Transfer id."""
    claim_id: str
    """Claim the amount came from."""
    patient_id: str
    """Patient billed."""
    amount: float
    """Amount in USD."""
    reason: TransferReason
    """Stated reason."""
    posted_date: date
    """Date posted."""
    patient_balance: float
    """Patient's balance after the transfer, in USD."""


class WriteOffResult(Contract):
    """A posted write-off."""

    write_off: WriteOff
    """The write-off record."""
    insurance_balance: float
    """Claim's insurance balance after the write-off, in USD."""


class EscalationResult(Contract):
    """A hand-off to a human queue."""

    escalation: Escalation
    """The escalation record."""


class CloseClaimResult(Contract):
    """A claim closed without further work."""

    claim_id: str
    """The closed claim."""
    work_status: WorkStatus
    """Now `closed`."""
    closed_reason: str
    """Why it was closed."""
