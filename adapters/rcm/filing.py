"""A claim as first filed: the 837P header from the patient, and the 277CA that accepted it.

One builder for the seed world (the sandbox's fixtures) and the task generator (envs.rcm), so both
follow the same two rules: the patient is their own subscriber, and a filed claim carries an
"accepted into adjudication" acknowledgment (by default the day after submission), which is what
later proves timely filing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from adapters.rcm.models import Acknowledgment, Claim, ClaimStatus, Patient, PayerSequence, ServiceLine


def accepted_ack(payer_claim_control_number: str, ack_date: date) -> Acknowledgment:
    """The 277CA acceptance of a claim into adjudication."""
    return Acknowledgment(
        action="accepted",
        ack_date=ack_date,
        status_category_code="A2",
        payer_claim_control_number=payer_claim_control_number,
        message="accepted into adjudication",
    )


def filed_claim(
    *,
    claim_id: str,
    patient: Patient,
    payer_id: str,
    member_id: str,
    billing_npi: str,
    rendering_npi: str,
    payer_claim_control_number: str,
    diagnoses: Sequence[str],
    lines: Sequence[ServiceLine],
    submitted: date,
    status: ClaimStatus,
    accepted: date | None = None,
    prior_auth_number: str | None = None,
    payer_sequence: PayerSequence = "primary",
) -> Claim:
    """The claim as filed for a self-subscribed `patient`, acknowledged on `accepted` (default: the
    day after `submitted`)."""
    return Claim(
        claim_id=claim_id,
        patient_id=patient.patient_id,
        payer_id=payer_id,
        payer_sequence=payer_sequence,
        billing_npi=billing_npi,
        rendering_npi=rendering_npi,
        patient_first_name=patient.first_name,
        patient_last_name=patient.last_name,
        patient_birth_date=patient.birth_date,
        member_id=member_id,
        subscriber_first_name=patient.first_name,
        subscriber_last_name=patient.last_name,
        payer_claim_control_number=payer_claim_control_number,
        diagnosis_codes=tuple(diagnoses),
        prior_auth_number=prior_auth_number,
        lines=tuple(lines),
        submitted_date=submitted,
        status=status,
        acknowledgments=(
            accepted_ack(payer_claim_control_number, accepted or submitted + timedelta(days=1)),
        ),
    )
