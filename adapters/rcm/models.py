"""World entities: payers and their rules, patients and coverage, claims (837), remittances (835),
acknowledgments (277CA) and documents.

Entities are immutable (`Contract` is frozen): the domain logic replaces an entity instead of
editing it, so a world snapshot shares every untouched entity with its successor. Collections
inside entities are tuples for the same reason. Fields holding patient identifiers are PHI-marked;
`phi_field` needs its description passed explicitly (it blocks the attribute docstring).
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from adapters.rcm.payers import AuthDecision as AuthDecision
from adapters.rcm.payers import Payer as Payer
from adapters.rcm.payers import PayerRules as PayerRules
from adapters.rcm.payers import RuleChange as RuleChange
from schemas.base import Contract
from schemas.phi import phi_field

GroupCode = Literal["CO", "PR", "OA", "PI", "CR"]
ClaimFrequency = Literal["1", "7", "8"]
PayerSequence = Literal["primary", "secondary", "tertiary"]
ClaimStatus = Literal[
    "submitted",
    "accepted",
    "rejected",
    "pending",
    "paid",
    "partially_paid",
    "denied",
    "replaced",
    "voided",
    "resubmitted",
]
WorkStatus = Literal["open", "closed"]
DocumentKind = Literal[
    "medical_record",
    "letter_of_medical_necessity",
    "abn_waiver",
    "proof_of_timely_filing",
    "operative_note",
    "eob",
    "other",
]
Relationship = Literal["self", "spouse", "child", "other"]


class Practice(Contract):
    """The billing practice whose denials the agent works, and its internal policy."""

    name: str
    """Practice name (the 835 payee)."""
    billing_npi: str
    """Billing provider NPI."""
    tax_id: str
    """Federal tax id of the practice."""
    write_off_approval_limit: float = Field(default=500.0, ge=0)
    """Write-offs above this amount (USD) need a supervisor: escalate instead of posting."""
    co_transfer_policy: Literal["record", "refuse"] = "record"
    """What the system does when a patient is billed for a contractual (CO) amount: post it and
    record a compliance violation, or refuse the transfer."""


class Provider(Contract):
    """A billing or rendering provider."""

    npi: str
    """National Provider Identifier (10 digits)."""
    name: str
    """Provider or organisation name."""
    kind: Literal["organization", "individual"]
    """Entity type: organisation (billing) or individual clinician (rendering)."""


class Address(Contract):
    """A postal address."""

    line1: str
    """Street address."""
    city: str
    """City."""
    state: str
    """Two-letter state code."""
    postal_code: str
    """ZIP code."""


class Patient(Contract):
    """A patient of the practice, with the balance billed to them."""

    patient_id: str
    """Practice's patient account number."""
    first_name: str = phi_field(description="Patient first name.")
    last_name: str = phi_field(description="Patient last name.")
    birth_date: date = phi_field(description="Patient date of birth.")
    gender: Literal["F", "M", "U"]
    """Administrative gender."""
    address: Address = phi_field(description="Patient home address.")
    balance: float = 0.0
    """Patient responsibility balance in USD (amounts transferred to the patient)."""


class Coverage(Contract):
    """One insurance coverage of a patient (what a 271 eligibility response describes)."""

    coverage_id: str
    """Internal id of the coverage record."""
    patient_id: str
    """Patient this coverage belongs to."""
    payer_id: str
    """The covering payer."""
    member_id: str = phi_field(description="Subscriber's member id at the payer.")
    group_number: str
    """Employer / plan group number."""
    plan_name: str
    """Plan name."""
    subscriber_first_name: str = phi_field(description="Subscriber first name.")
    subscriber_last_name: str = phi_field(description="Subscriber last name.")
    subscriber_birth_date: date = phi_field(description="Subscriber date of birth.")
    relationship: Relationship
    """Patient's relationship to the subscriber."""
    start_date: date
    """First day of coverage."""
    end_date: date | None = None
    """Last day of coverage; None while active."""
    cob_order: PayerSequence = "primary"
    """Coordination-of-benefits order of this coverage for the patient."""

    def active_on(self, day: date) -> bool:
        """Whether the coverage covers `day`."""
        return self.start_date <= day and (self.end_date is None or day <= self.end_date)


class ServiceLine(Contract):
    """An 837 service line (loop 2400)."""

    line_number: int = Field(ge=1)
    """Line number within the claim (LX01)."""
    procedure_code: str
    """CPT/HCPCS code."""
    modifiers: tuple[str, ...] = ()
    """Procedure modifiers (e.g. 25, 59, XU, LT, RT, 95, GA), at most four."""
    diagnosis_pointers: tuple[int, ...] = (1,)
    """1-based pointers into the claim's diagnosis codes."""
    units: int = Field(default=1, ge=1)
    """Units of service."""
    charge: float = Field(ge=0)
    """Billed charge in USD."""
    place_of_service: str
    """Place-of-service code (11 office, 02/10 telehealth, 22 outpatient hospital)."""
    service_date: date
    """Date of service."""


class Acknowledgment(Contract):
    """A 277CA claim acknowledgment: proof that the claim reached the payer on a date."""

    ack_type: Literal["277CA"] = "277CA"
    """Transaction that carried the acknowledgment."""
    action: Literal["accepted", "rejected"]
    """Whether the payer accepted the claim into adjudication or rejected it at the front end."""
    ack_date: date
    """Date of the acknowledgment (the receipt date that proves timely filing)."""
    status_category_code: str
    """277 STC category, e.g. A2 accepted or A7 rejected."""
    payer_claim_control_number: str | None = None
    """Control number the payer assigned, when accepted."""
    message: str = ""
    """Free-text explanation from the payer."""


class PriorPayerAdjudication(Contract):
    """What an earlier payer decided on the services (837 loop 2320 and its CAS): a claim to a
    secondary payer carries the primary's adjudication so the secondary can coordinate benefits."""

    payer_id: str
    """The payer that adjudicated first."""
    payer_claim_control_number: str
    """That payer's claim control number."""
    adjudication_date: date
    """Date of its remittance (the 835's production date)."""
    paid_amount: float
    """What it paid, in USD."""
    patient_responsibility_amount: float
    """What it left as the patient's share (deductible, coinsurance, copay), in USD."""
    adjustments: tuple[Adjustment, ...] = ()
    """Its adjustments, claim and line level together (group, CARC, amount)."""


class Claim(Contract):
    """An 837P professional claim as submitted, with its current payer-side status."""

    claim_id: str
    """Practice's claim id (patient control number, CLM01)."""
    patient_id: str
    """Patient account number."""
    payer_id: str
    """Payer the claim was sent to."""
    payer_sequence: PayerSequence = "primary"
    """Whether this payer is billed as primary, secondary or tertiary (SBR01)."""
    billing_npi: str
    """Billing provider NPI (loop 2010AA)."""
    rendering_npi: str
    """Rendering provider NPI (loop 2310B)."""
    patient_first_name: str = phi_field(description="Patient first name as submitted.")
    patient_last_name: str = phi_field(description="Patient last name as submitted.")
    patient_birth_date: date = phi_field(description="Patient date of birth as submitted.")
    member_id: str = phi_field(description="Subscriber member id as submitted (loop 2010BA).")
    subscriber_first_name: str = phi_field(description="Subscriber first name as submitted.")
    subscriber_last_name: str = phi_field(description="Subscriber last name as submitted.")
    relationship: Relationship = "self"
    """Patient's relationship to the subscriber."""
    frequency_code: ClaimFrequency = "1"
    """Claim frequency (CLM05-3): 1 original, 7 replacement, 8 void."""
    original_claim_control_number: str | None = None
    """Payer control number of the claim this one replaces or voids (REF*F8), for 7 and 8."""
    payer_claim_control_number: str | None = None
    """Control number the payer assigned to this claim on acceptance."""
    diagnosis_codes: tuple[str, ...]
    """ICD-10-CM codes (HI segment), pointed to by the lines."""
    prior_auth_number: str | None = None
    """Prior-authorization number (REF*G1), when one is on the claim."""
    lines: tuple[ServiceLine, ...]
    """Service lines."""
    submitted_date: date
    """Date the claim was sent."""
    status: ClaimStatus = "submitted"
    """Payer-side status of the claim; `replaced` and `resubmitted` say a corrected claim took its
    place (a replacement, or a new claim after a rejection or an unprocessable return)."""
    acknowledgments: tuple[Acknowledgment, ...] = ()
    """277CA acknowledgments received for this claim."""
    replaces_claim_id: str | None = None
    """For a replacement (7) or void (8): the claim it supersedes."""
    replaced_by_claim_id: str | None = None
    """The replacement claim that superseded this one."""
    billed_from_claim_id: str | None = None
    """For a claim sent to another payer (COB): the denied claim it was made from."""
    prior_payer: PriorPayerAdjudication | None = None
    """For a claim to a secondary or tertiary payer: the adjudication of the payer before it."""
    resubmits_claim_id: str | None = None
    """For a new claim (frequency 1) sent after a rejection or an unprocessable return (MA130): the
    returned claim it corrects."""
    resubmitted_as_claim_id: str | None = None
    """For a rejected or unprocessable claim: the new claim (frequency 1) sent in its place."""
    work_status: WorkStatus = "open"
    """Whether the practice still works this claim."""
    closed_reason: str | None = None
    """Why the claim was closed, when it was."""

    @property
    def total_charge(self) -> float:
        """Sum of the line charges (CLM02)."""
        return round(sum(line.charge for line in self.lines), 2)

    @property
    def first_service_date(self) -> date:
        """Earliest date of service on the claim."""
        return min(line.service_date for line in self.lines)


class Adjustment(Contract):
    """One CAS adjustment: group code, reason code (CARC) and amount."""

    group_code: GroupCode
    """CO contractual, PR patient responsibility, OA other, PI payer initiated, CR correction."""
    reason_code: str
    """Claim Adjustment Reason Code (CARC)."""
    amount: float
    """Adjusted amount in USD."""


class RemitLine(Contract):
    """An 835 service payment (SVC loop 2110) with its adjustments and remark codes."""

    line_number: int
    """The claim line this payment answers (REF*6R)."""
    procedure_code: str
    """Adjudicated CPT/HCPCS code."""
    modifiers: tuple[str, ...] = ()
    """Adjudicated modifiers."""
    charge: float
    """Line charge in USD (SVC02)."""
    paid: float
    """Line payment in USD (SVC03)."""
    units: int = 1
    """Paid units of service (SVC05)."""
    service_date: date
    """Date of service (DTM*472)."""
    adjustments: tuple[Adjustment, ...] = ()
    """Line adjustments (CAS)."""
    remark_codes: tuple[str, ...] = ()
    """Remittance Advice Remark Codes (LQ*HE)."""


class ProviderAdjustment(Contract):
    """One provider-level adjustment (PLB) of the 835 a claim payment travels on: money the payer
    withholds from the check (a positive amount) or adds to it (a negative one), outside any claim."""

    reason_code: str
    """PLB03-1 adjustment reason: WO overpayment recovery, FB forwarding balance, L6 interest owed,
    72 authorized return, CS adjustment."""
    reference: str
    """PLB03-2: what it concerns, e.g. the payer claim control number of the claim recovered from."""
    amount: float
    """PLB04 in USD: positive reduces the payment, negative increases it (a negative FB carries a
    take-back the check could not cover to a later 835)."""


class Remittance(Contract):
    """One claim payment in an 835 ERA (loop 2100): everything here travels in the X12."""

    remittance_id: str
    """ERA id; also the check/EFT trace number (TRN02)."""
    claim_id: str
    """Practice's claim id (CLP01)."""
    payer_id: str
    """Paying payer (N1*PR REF*2U)."""
    payer_claim_control_number: str
    """Payer claim control number (CLP07)."""
    claim_status_code: str
    """CLP02 claim status: 1 processed as primary, 4 denied, 22 reversal..."""
    total_charge: float
    """Claim charge in USD (CLP03)."""
    paid_amount: float
    """Claim payment in USD (CLP04)."""
    patient_responsibility_amount: float = 0.0
    """Patient responsibility in USD (CLP05)."""
    claim_filing_indicator: str
    """CLP06 claim filing indicator, e.g. MB or 12."""
    production_date: date
    """Date the payer produced the remittance (DTM*405); appeal windows count from it."""
    payment_method: Literal["ACH", "CHK", "NON"]
    """BPR04: ACH, check, or NON (no payment)."""
    patient_first_name: str = phi_field(description="Patient first name (NM1*QC).")
    patient_last_name: str = phi_field(description="Patient last name (NM1*QC).")
    member_id: str = phi_field(description="Member id of the patient (NM1*QC NM109).")
    claim_adjustments: tuple[Adjustment, ...] = ()
    """Claim-level adjustments (CAS in loop 2100)."""
    lines: tuple[RemitLine, ...] = ()
    """Service payments."""
    trace_number: str | None = None
    """Check/EFT trace (TRN02) of an 835 this payment shares with other claim payments (a reversal,
    CLP02 22, and its corrected payment); their ids are `<trace>-<n>` by their place in it. None:
    the 835 carries this payment alone and its trace is the remittance id."""
    provider_adjustments: tuple[ProviderAdjustment, ...] = ()
    """The PLB adjustments of the 835, on its last claim payment."""


class Document(Contract):
    """A document in the practice's record system (medical record, LMN, ABN, proof of filing)."""

    document_id: str
    """Document id."""
    patient_id: str
    """Patient the document is about."""
    claim_id: str | None = None
    """Claim the document belongs to; None for documents about the patient in general."""
    kind: DocumentKind
    """Kind of document."""
    title: str
    """Title."""
    document_date: date
    """Date the document was written or signed."""
    signed: bool = False
    """Whether it carries a signature (an ABN waiver counts only when signed)."""
    procedure_codes: tuple[str, ...] = ()
    """CPT/HCPCS codes the document names; an ABN names the items or services it is for (a routine
    form that names none shifts no liability)."""
    noncoverage_reason: str = ""
    """For an ABN: why, the notice says, Medicare may not pay for the service (blank on a generic form)."""
    text: str = phi_field(description="Document text (clinical content, PHI).")
