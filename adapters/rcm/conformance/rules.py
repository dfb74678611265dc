"""Conformance scenarios for the rules the simple CARC table hides (see `seed.SEED_RULE_CASES`)."""

from __future__ import annotations

from adapters.conformance import Scenario, scenario
from adapters.rcm.conformance.steps import appeal, bill, claim, elig, new_claim, replace, transfer, write_off

RULE_SCENARIOS: tuple[Scenario, ...] = (
    scenario(
        "co45_contractual_above_the_limit_needs_no_approval",
        ("get_remittance", claim("CLM-1101")),
        ("get_payer_rules", {"payer_id": "HRTL"}),
        write_off("CLM-1101", 900.0, "contractual"),
        ("get_claim", claim("CLM-1101")),
    ),
    scenario(
        "co45_underpayment_against_the_fee_schedule",
        ("get_remittance", claim("CLM-1102")),
        ("get_payer_rules", {"payer_id": "HRTL"}),
        write_off("CLM-1102", 90.0, "contractual"),
        appeal("CLM-1102", "underpayment", ["DOC-1102"]),
    ),
    scenario(
        "contractual_beyond_the_allowance_counts_against_the_limit",
        write_off("CLM-1102", 90.0, "contractual"),
        write_off("CLM-1102", 30.0, "contractual"),
        write_off("CLM-1005", 480.0, "no_authorization"),
        write_off("CLM-1005", 30.0, "contractual"),
    ),
    scenario(
        "abn_signed_after_the_service_shifts_no_liability",
        ("get_documents", claim("CLM-1103")),
        ("read_document", {"document_id": "DOC-1103"}),
        transfer("CLM-1103", 120.0, "non_covered_with_waiver"),
        write_off("CLM-1104", 85.0, "not_medically_necessary"),
        ("read_document", {"document_id": "DOC-1104"}),
        transfer("CLM-1104", 10.0, "non_covered_with_waiver"),
        transfer("CLM-1015", 175.0, "non_covered_with_waiver"),
    ),
    scenario(
        "medicare_appeal_window_runs_from_presumed_receipt",
        ("get_payer_rules", {"payer_id": "MCR"}),
        appeal("CLM-1105", "medical_necessity", ["DOC-1105A", "DOC-1105B"]),
        appeal("CLM-1023", "medical_necessity", []),
    ),
    scenario(
        "co97_x_modifier_never_beside_59",
        ("read_document", {"document_id": "DOC-1016"}),
        replace("CLM-1016", "BLUE25101600", lines=[{"line_number": 2, "modifiers": ["59", "XS"]}]),
        replace("CLM-1016", "BLUE25101600", lines=[{"line_number": 2, "modifiers": ["XS"]}]),
    ),
    scenario(
        "cob_patient_share_goes_to_the_active_secondary_first",
        ("get_remittance", claim("CLM-1106")),
        elig("2025-05-27", "HRTL", "HRT377120554"),
        transfer("CLM-1106", 30.0, "coinsurance"),
        write_off("CLM-1106", 90.0, "contractual"),
        bill("CLM-1106", "MCR", "3GT5KM8RX27", "secondary"),
        ("get_claim", claim("CLM-R00001")),
    ),
    scenario(
        "cob_secondary_claim_needs_the_primary_adjudication",
        bill("CLM-1025", "MCR", "1EG4TE5MK72", "secondary"),
        bill("CLM-1106", "MCR", "3GT5KM8RX27", "primary"),
        bill("CLM-1106", "MCR", "3GT5KM8RX27", "secondary"),
    ),
    scenario(
        "co18_duplicate_of_an_original_in_process",
        ("get_remittance", claim("CLM-1108")),
        ("find_original_claim", claim("CLM-1108")),
        ("get_claim_status", claim("CLM-1107")),
        ("submit_new_claim", {"claim_id": "CLM-1107", "corrections": {}, "note": None}),
        ("close_claim", {"claim_id": "CLM-1108", "reason": "duplicate_of_original_in_process", "note": None}),
    ),
    scenario(
        "reversal_and_correction_post_the_net_change",
        ("get_remittance", claim("CLM-1121")),
        ("get_payer_rules", {"payer_id": "HRTL"}),
        write_off("CLM-1121", 90.0, "contractual"),
        write_off("CLM-1121", 20.0, "contractual"),
        ("get_claim", claim("CLM-1121")),
        ("get_claim_status", claim("CLM-1121")),
    ),
    scenario(
        "take_back_below_the_contract_is_disputed",
        ("get_remittance", claim("CLM-1122")),
        ("get_claim", claim("CLM-1122")),
        appeal("CLM-1122", "underpayment", []),
        write_off("CLM-1122", 25.0, "contractual"),
        ("get_claim", claim("CLM-1122")),
    ),
    scenario(
        "prompt_pay_interest_runs_from_the_receipt",
        ("get_claim_status", claim("CLM-1123")),
        ("get_payer_rules", {"payer_id": "HRTL"}),
        write_off("CLM-1123", 90.0, "contractual"),
        appeal("CLM-1123", "prompt_pay_interest", []),
        appeal("CLM-1123", "prompt_pay_interest", []),
        ("get_claim_status", claim("CLM-1124")),
        write_off("CLM-1124", 45.0, "contractual"),
        ("get_claim", claim("CLM-1124")),
    ),
    scenario(
        "payer_front_end_edits",
        bill("CLM-1017", "MCR", "1EG4TE5MK72", "primary"),
        replace("CLM-1003", "ACME25100300", prior_auth_number="PA999999"),
        replace("CLM-1001", "MCR25100100", rendering_npi="1234567893"),
        new_claim("CLM-1024", rendering_npi="1234567893"),
        replace("CLM-1003", "ACME25100300", prior_auth_number="PA778812"),
    ),
)
