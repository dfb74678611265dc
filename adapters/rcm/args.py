"""Tool argument models: the contract the model reads, so every field is described.

Optional arguments are `X | None = None`: OpenAI strict mode makes every property required and an
optional one nullable, so `null` must mean "not given" here (a default of another value would make
the strict schema accept a `null` the model then rejects).
"""

from __future__ import annotations

from datetime import date

from pydantic import Field, model_validator

from adapters.rcm.models import PayerSequence
from adapters.rcm.records import (
    AppealBasis,
    CloseReason,
    EscalationQueue,
    RecommendedAction,
    TransferReason,
    Urgency,
    WriteOffReason,
)
from schemas.base import Contract
from schemas.phi import phi_field

ClaimId = str


class ClaimRef(Contract):
    """Arguments naming one claim."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """The practice's claim id (patient control number), e.g. `CLM-1001`."""


class GetClaimArgs(ClaimRef):
    """Arguments of `get_claim`."""


class GetRemittanceArgs(ClaimRef):
    """Arguments of `get_remittance`."""


class GetClaimStatusArgs(ClaimRef):
    """Arguments of `get_claim_status`."""


class FindOriginalClaimArgs(ClaimRef):
    """Arguments of `find_original_claim`."""


class GetDocumentsArgs(ClaimRef):
    """Arguments of `get_documents`."""


class GetAuthorizationsArgs(ClaimRef):
    """Arguments of `get_authorizations`."""


class ReadDocumentArgs(Contract):
    """Arguments of `read_document`."""

    document_id: str = Field(min_length=1, max_length=64)
    """Document id from `get_documents`."""


class GetPayerRulesArgs(Contract):
    """Arguments of `get_payer_rules`."""

    payer_id: str = Field(min_length=1, max_length=64)
    """Payer id, as on the claim."""
    service_date: date | None = None
    """A claim's date of service: the answer's `rules` are the ones in effect that day (rules
    change on a date). Default: today."""


class GetPayerBulletinsArgs(Contract):
    """Arguments of `get_payer_bulletins`."""

    payer_id: str | None = Field(default=None, min_length=1, max_length=64)
    """Payer id; null lists every payer's bulletins."""


class CheckEligibilityArgs(Contract):
    """Arguments of `check_eligibility` (a 270 inquiry): by member id, or by demographics."""

    payer_id: str | None = Field(default=None, max_length=64)
    """Payer to ask; null searches every payer the clearinghouse reaches (insurance discovery)."""
    member_id: str | None = phi_field(
        default=None, max_length=64, description="Member id to verify; null to search by demographics."
    )
    first_name: str | None = phi_field(
        default=None, max_length=64, description="Patient first name, for a demographic search."
    )
    last_name: str | None = phi_field(
        default=None, max_length=64, description="Patient last name, for a demographic search."
    )
    birth_date: date | None = phi_field(
        default=None, description="Patient date of birth (YYYY-MM-DD), for a demographic search."
    )
    service_date: date
    """Date of service to check coverage on (YYYY-MM-DD)."""

    @model_validator(mode="after")
    def _member_or_demographics(self) -> CheckEligibilityArgs:
        demographics = (self.first_name, self.last_name, self.birth_date)
        if self.member_id is None and any(part is None for part in demographics):
            raise ValueError("give member_id, or first_name, last_name and birth_date")
        return self


class LineCorrection(Contract):
    """Corrections to one service line of the claim being corrected; null leaves a field as it is."""

    line_number: int = Field(ge=1, le=50)
    """Line to correct (as numbered on the original claim)."""
    procedure_code: str | None = Field(default=None, min_length=5, max_length=5)
    """Corrected CPT/HCPCS code."""
    modifiers: list[str] | None = Field(default=None, max_length=4)
    """The line's complete modifier list after correction (replaces the old list), e.g. ["XS"]; a
    distinct procedural service takes 59 or the X modifier that says why (XE separate encounter, XS
    separate structure, XP separate practitioner, XU unusual non-overlapping service), not both."""
    units: int | None = Field(default=None, ge=1, le=999)
    """Corrected units of service."""
    diagnosis_pointers: list[int] | None = Field(default=None, min_length=1, max_length=4)
    """Corrected 1-based pointers into the claim's diagnosis codes."""
    place_of_service: str | None = Field(default=None, min_length=2, max_length=2)
    """Corrected place-of-service code (11 office, 02/10 telehealth, 22 outpatient)."""


class ClaimCorrections(Contract):
    """What the corrected claim changes; null (or an empty list) leaves the original's value."""

    member_id: str | None = phi_field(
        default=None, max_length=64, description="Corrected subscriber member id."
    )
    prior_auth_number: str | None = Field(default=None, max_length=64)
    """Prior-authorization number to put on the claim (REF*G1)."""
    rendering_npi: str | None = Field(default=None, pattern=r"^\d{10}$")
    """Corrected rendering provider NPI (10 digits)."""
    diagnosis_codes: list[str] | None = Field(default=None, min_length=1, max_length=12)
    """The complete corrected list of ICD-10-CM codes (replaces the old list)."""
    lines: list[LineCorrection] | None = Field(default=None, max_length=50)
    """Per-line corrections."""


class SubmitReplacementClaimArgs(Contract):
    """Arguments of `submit_replacement_claim` (837 with frequency code 7)."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """The claim being replaced."""
    original_claim_control_number: str = Field(min_length=1, max_length=64)
    """The payer claim control number of the claim being replaced (from its remittance)."""
    corrections: ClaimCorrections
    """What to correct on the replacement."""
    note: str | None = Field(default=None, max_length=1000)
    """Claim note (NTE) explaining the correction."""


class SubmitNewClaimArgs(Contract):
    """Arguments of `submit_new_claim` (837 with frequency code 1, after a rejection or MA130)."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """The claim the payer rejected (277CA) or returned as unprocessable (RARC MA130)."""
    corrections: ClaimCorrections
    """What to correct on the new claim."""
    note: str | None = Field(default=None, max_length=1000)
    """Claim note (NTE) explaining the correction."""


class SubmitAppealArgs(Contract):
    """Arguments of `submit_appeal`."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """The denied claim to appeal."""
    basis: AppealBasis
    """Ground of the appeal."""
    reason: str = Field(min_length=10, max_length=4000)
    """The appeal argument: why the denial is wrong, citing the attached evidence."""
    attachment_document_ids: list[str] = Field(max_length=10)
    """Ids of documents to attach (from `get_documents`); may be empty."""


class RequestAuthorizationArgs(Contract):
    """Arguments of `request_authorization` (a 278 request; retro when the service date is past)."""

    patient_id: str = Field(min_length=1, max_length=64)
    """Patient account number."""
    payer_id: str = Field(min_length=1, max_length=64)
    """Payer to ask."""
    procedure_codes: list[str] = Field(min_length=1, max_length=10)
    """CPT/HCPCS codes to authorize."""
    diagnosis_codes: list[str] = Field(max_length=12)
    """ICD-10-CM codes supporting the request."""
    service_date: date
    """Date of service (YYYY-MM-DD)."""
    claim_id: str | None = Field(default=None, max_length=64)
    """Claim the request is for, when working a denial."""
    urgency: Urgency | None = None
    """standard (decided within 7 days) or expedited (72 hours); null means standard."""
    attachment_document_ids: list[str] | None = Field(default=None, max_length=10)
    """Clinical documents supporting the request."""
    note: str | None = Field(default=None, max_length=1000)
    """Message to the payer's reviewer (278 MSG): why the request may still be made. The payer
    decides by its rules and the attachments; the message is not kept on the authorization."""


class BillOtherPayerArgs(Contract):
    """Arguments of `bill_other_payer` (coordination of benefits: a new claim to another payer)."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """The claim whose services are billed to the other payer."""
    payer_id: str = Field(min_length=1, max_length=64)
    """Payer to bill (found with `check_eligibility`)."""
    member_id: str = phi_field(min_length=1, max_length=64, description="Member id at that payer.")
    payer_sequence: PayerSequence
    """Whether that payer is primary, secondary or tertiary for these services."""


class TransferToPatientArgs(Contract):
    """Arguments of `transfer_to_patient_responsibility`."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """Claim whose amount the patient is billed for."""
    amount: float = Field(gt=0, le=1_000_000)
    """Amount in USD to bill the patient."""
    reason: TransferReason
    """Why the patient owes it."""
    note: str | None = Field(default=None, max_length=1000)
    """Account note: what shows the patient owes it (the eligibility answer, the signed waiver)."""


class PostWriteOffArgs(Contract):
    """Arguments of `post_write_off`."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """Claim to write off against."""
    amount: float = Field(gt=0, le=1_000_000)
    """Amount in USD to write off."""
    reason_code: WriteOffReason
    """Adjustment reason."""
    note: str | None = Field(default=None, max_length=1000)
    """Free-text note for the ledger."""


class EscalateArgs(Contract):
    """Arguments of `escalate_to_human`."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """Claim to hand off."""
    queue: EscalationQueue
    """Work queue: supervisor (approvals), credentialing, coding, billing, compliance."""
    recommended_action: RecommendedAction
    """What you recommend the human do."""
    reason: str = Field(min_length=10, max_length=4000)
    """Why a human is needed, with the facts you found."""
    amount: float | None = Field(default=None, ge=-1_000_000, le=1_000_000)
    """Amount in USD the recommendation concerns (e.g. the write-off to approve); negative for a
    credit balance (money the practice owes back)."""


class CloseClaimArgs(Contract):
    """Arguments of `close_claim`."""

    claim_id: ClaimId = Field(min_length=1, max_length=64)
    """Claim that needs no further work."""
    reason: CloseReason
    """Why no action is needed."""
    note: str | None = Field(default=None, max_length=1000)
    """Free-text note."""
