"""Conformance scenarios: refusals, malformed calls, and edge cases of the tools."""

from __future__ import annotations

from adapters.conformance import Scenario, scenario
from adapters.rcm.conformance.steps import (
    appeal,
    auth,
    claim,
    elig,
    escalate,
    new_claim,
    replace,
    transfer,
    write_off,
)

EDGE_SCENARIOS: tuple[Scenario, ...] = (
    scenario(
        "unknown_ids_are_refused",
        ("get_claim", claim("CLM-404")),
        ("get_remittance", claim("CLM-404")),
        ("read_document", {"document_id": "DOC-404"}),
        ("get_payer_rules", {"payer_id": "NOPE"}),
        elig("2025-05-01", "NOPE", "X1"),
        escalate("CLM-404", "billing", "review"),
    ),
    scenario(
        "replacement_refusals",
        replace("CLM-1001", "WRONG", rendering_npi="1497758544"),
        replace("CLM-1001", "MCR25100100", lines=[{"line_number": 3, "units": 2}]),
        replace("CLM-1016", "BLUE25101600", lines=[{"line_number": 1, "diagnosis_pointers": [5]}]),
        replace("CLM-1001", "MCR25100100", rendering_npi="1497758544"),
        replace("CLM-1001", "MCR25100100", rendering_npi="1497758544"),
        replace("CLM-R00001", "PCN00001", diagnosis_codes=["M54.51"]),
    ),
    scenario(
        "new_claim_refusals",
        new_claim("CLM-1001", rendering_npi="1497758544"),
        replace("CLM-1001", "MCR25100100", rendering_npi="1497758544"),
        new_claim("CLM-R00001", rendering_npi="1497758544"),
        new_claim("CLM-1018"),
        new_claim("CLM-404"),
        new_claim("CLM-1024", lines=[{"line_number": 2, "units": 2}]),
        ("submit_new_claim", {"claim_id": "CLM-1024"}),
    ),
    scenario(
        "authorization_pended_and_denied",
        auth("P-004", "BLUE", ["72148"], "2025-06-30", urgency="expedited"),
        auth("P-003", "ACME", ["20610"], "2025-06-20"),
        auth("P-003", "ACME", ["20610"], "2025-06-20", attachment_document_ids=["DOC-1003"]),
        auth("P-003", "ACME", ["20610"], "2025-06-20", attachment_document_ids=["DOC-1005"]),
        ("get_authorizations", claim("CLM-1003")),
    ),
    scenario(
        "bill_other_payer_refusals",
        (
            "bill_other_payer",
            {
                "claim_id": "CLM-1017",
                "payer_id": "ACME",
                "member_id": "ACM884120",
                "payer_sequence": "primary",
            },
        ),
        (
            "bill_other_payer",
            {
                "claim_id": "CLM-1017",
                "payer_id": "BLUE",
                "member_id": "MCD88123456",
                "payer_sequence": "primary",
            },
        ),
        (
            "bill_other_payer",
            {
                "claim_id": "CLM-1011",
                "payer_id": "ACME",
                "member_id": "ACM410290",
                "payer_sequence": "primary",
            },
        ),
    ),
    scenario(
        "one_claim_handed_off_the_others_still_worked",
        escalate("CLM-1021", "credentialing", "review"),
        write_off("CLM-1018", 70.0, "contractual"),
        transfer("CLM-1018", 28.0, "coinsurance"),
        ("get_claim", claim("CLM-1021")),
        ("get_claim", claim("CLM-1018")),
    ),
    scenario(
        "write_off_refusals",
        write_off("CLM-1018", 99.0, "contractual"),
        write_off("CLM-1005", 300.0, "no_authorization"),
        write_off("CLM-1005", 300.0, "no_authorization"),
        ("get_claim", claim("CLM-1005")),
    ),
    scenario(
        "appeal_refusals",
        replace("CLM-1002", "BLUE25100200", lines=[{"line_number": 1, "modifiers": ["95"]}]),
        appeal("CLM-R00001", "coding", []),
        appeal("CLM-1014", "medical_necessity", ["DOC-1005"]),
        appeal("CLM-1014", "medical_necessity", ["DOC-1014A"]),
        appeal("CLM-1014", "other", []),
    ),
    scenario(
        "co_adjustment_billed_to_patient_is_recorded",
        ("get_remittance", claim("CLM-1014")),
        transfer("CLM-1014", 220.0, "other"),
        transfer("CLM-1014", 5.0, "other"),
    ),
    scenario(
        "eligibility_variants",
        elig("2025-04-20", "ACME", "ACM410290"),
        elig("2025-01-10", "ACME", "ACM410290"),
        elig("2025-05-01", name=("Nobody", "Here", "1990-01-01")),
        elig("2025-05-01", member_id="mcd88123456"),
    ),
    scenario(
        "replacement_has_no_remittance_yet",
        replace("CLM-1013", "ACME25101300", member_id="ACM310552"),
        ("get_remittance", claim("CLM-R00001")),
        ("get_claim_status", claim("CLM-R00001")),
        ("get_claim_status", claim("CLM-1013")),
        ("find_original_claim", claim("CLM-R00001")),
    ),
    scenario(
        "status_of_paid_and_partial_claims",
        ("get_claim_status", claim("CLM-0908")),
        ("get_claim_status", claim("CLM-1016")),
        ("get_remittance", claim("CLM-0908")),
        ("get_remittance", claim("CLM-1012")),
    ),
    scenario(
        "malformed_arguments_fail_validation",
        ("get_claim", {}),
        ("get_claim", {"claim_id": "CLM-1001", "x": 1}),
        (
            "post_write_off",
            {"claim_id": "CLM-1018", "amount": -1, "reason_code": "contractual", "note": None},
        ),
        ("check_eligibility", {"service_date": "2025-05-01"}),
        (
            "submit_appeal",
            {"claim_id": "CLM-1014", "basis": "gut_feeling", "reason": "x", "attachment_document_ids": []},
        ),
        ("no_such_tool", {"claim_id": "CLM-1001"}),
    ),
    scenario(
        "escalations_and_closing",
        escalate("CLM-1010", "billing", "bill_other_payer"),
        ("close_claim", {"claim_id": "CLM-0908", "reason": "paid_as_expected", "note": "paid"}),
        ("close_claim", {"claim_id": "CLM-0908", "reason": "paid_as_expected", "note": None}),
        escalate("CLM-0908", "compliance", "review"),
    ),
)
