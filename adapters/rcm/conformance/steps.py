"""Building blocks of the conformance scenarios: one helper per kind of step (`adapters.conformance`
has `Scenario`)."""

from __future__ import annotations

from typing import Any

from adapters.conformance import Step


def claim(claim_id: str) -> dict[str, Any]:
    return {"claim_id": claim_id}


def replace(claim_id: str, pcn: str, **corrections: Any) -> Step:
    return (
        "submit_replacement_claim",
        {"claim_id": claim_id, "original_claim_control_number": pcn, "corrections": corrections},
    )


def new_claim(claim_id: str, **corrections: Any) -> Step:
    return ("submit_new_claim", {"claim_id": claim_id, "corrections": corrections, "note": None})


def transfer(claim_id: str, amount: float, reason: str) -> Step:
    return ("transfer_to_patient_responsibility", {"claim_id": claim_id, "amount": amount, "reason": reason})


def write_off(claim_id: str, amount: float, reason: str) -> Step:
    return ("post_write_off", {"claim_id": claim_id, "amount": amount, "reason_code": reason, "note": None})


def appeal(claim_id: str, basis: str, docs: list[str]) -> Step:
    reason = f"Requesting reconsideration of the {basis.replace('_', ' ')} denial; see attachments."
    return (
        "submit_appeal",
        {"claim_id": claim_id, "basis": basis, "reason": reason, "attachment_document_ids": docs},
    )


def escalate(claim_id: str, queue: str, action: str, amount: float | None = None) -> Step:
    return (
        "escalate_to_human",
        {
            "claim_id": claim_id,
            "queue": queue,
            "recommended_action": action,
            "reason": f"{action} needs a human decision on {claim_id}",
            "amount": amount,
        },
    )


def elig(
    service_date: str,
    payer_id: str | None = None,
    member_id: str | None = None,
    name: tuple[str, str, str] | None = None,
) -> Step:
    first, last, born = name or (None, None, None)
    return (
        "check_eligibility",
        {
            "payer_id": payer_id,
            "member_id": member_id,
            "first_name": first,
            "last_name": last,
            "birth_date": born,
            "service_date": service_date,
        },
    )


def auth(patient: str, payer: str, codes: list[str], dos: str, **extra: Any) -> Step:
    return (
        "request_authorization",
        {
            "patient_id": patient,
            "payer_id": payer,
            "procedure_codes": codes,
            "diagnosis_codes": ["M54.16"],
            "service_date": dos,
            **extra,
        },
    )


def bill(claim_id: str, payer_id: str, member_id: str, sequence: str) -> Step:
    return (
        "bill_other_payer",
        {"claim_id": claim_id, "payer_id": payer_id, "member_id": member_id, "payer_sequence": sequence},
    )
