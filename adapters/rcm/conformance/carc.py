"""Conformance scenarios: the correct (and some wrong) moves for each CARC row of the brief."""

from __future__ import annotations

from adapters.rcm.conformance.steps import (
    Scenario,
    appeal,
    auth,
    claim,
    elig,
    escalate,
    replace,
    scenario,
    transfer,
    write_off,
)

CARC_SCENARIOS: tuple[Scenario, ...] = (
    scenario(
        "co16_n290_rendering_npi",
        ("get_remittance", claim("CLM-1001")),
        ("get_claim", claim("CLM-1001")),
        ("get_documents", claim("CLM-1001")),
        ("read_document", {"document_id": "DOC-1001"}),
        replace("CLM-1001", "MCR25100100", rendering_npi="1497758544"),
        ("get_claim_status", claim("CLM-R00001")),
        ("get_claim", claim("CLM-1001")),
    ),
    scenario(
        "co4_modifier_95_telehealth",
        ("get_remittance", claim("CLM-1002")),
        ("get_payer_rules", {"payer_id": "BLUE"}),
        replace("CLM-1002", "BLUE25100200", lines=[{"line_number": 1, "modifiers": ["95"]}]),
    ),
    scenario(
        "co15_auth_on_file",
        ("get_remittance", claim("CLM-1003")),
        ("get_authorizations", claim("CLM-1003")),
        replace("CLM-1003", "ACME25100300", prior_auth_number="PA778812"),
    ),
    scenario(
        "co197_retro_auth_then_replacement",
        ("get_remittance", claim("CLM-1004")),
        ("get_payer_rules", {"payer_id": "BLUE"}),
        auth(
            "P-004",
            "BLUE",
            ["11042"],
            "2025-06-06",
            claim_id="CLM-1004",
            attachment_document_ids=["DOC-1004"],
        ),
        replace("CLM-1004", "BLUE25100400", prior_auth_number="PA00001"),
    ),
    scenario(
        "co197_no_retro_window_appeal",
        auth("P-005", "MCD", ["72148"], "2025-05-02", claim_id="CLM-1005"),
        ("get_documents", claim("CLM-1005")),
        appeal("CLM-1005", "medical_necessity", ["DOC-1005"]),
    ),
    scenario(
        "co197_write_off_needs_approval",
        write_off("CLM-1005", 1250.0, "no_authorization"),
        escalate("CLM-1005", "supervisor", "write_off", 1250.0),
    ),
    scenario(
        "co29_appeal_with_proof_of_timely_filing",
        ("get_claim_status", claim("CLM-1006")),
        ("get_documents", claim("CLM-1006")),
        appeal("CLM-1006", "timely_filing", ["DOC-1006"]),
    ),
    scenario(
        "co29_no_proof_write_off",
        ("get_claim_status", claim("CLM-1007")),
        ("get_payer_rules", {"payer_id": "ACME"}),
        write_off("CLM-1007", 180.0, "timely_filing"),
        ("get_claim", claim("CLM-1007")),
    ),
    scenario(
        "co18_paid_original_close",
        ("find_original_claim", claim("CLM-1008")),
        ("close_claim", {"claim_id": "CLM-1008", "reason": "duplicate_of_paid_original", "note": None}),
        write_off("CLM-1008", 150.0, "administrative"),
    ),
    scenario(
        "co18_denied_original_work_the_original",
        ("find_original_claim", claim("CLM-1009")),
        ("get_remittance", claim("CLM-0909")),
        replace("CLM-0909", "BLUE25090900", lines=[{"line_number": 1, "procedure_code": "12002"}]),
        ("close_claim", {"claim_id": "CLM-1009", "reason": "no_action_needed", "note": "original corrected"}),
    ),
    scenario(
        "co22_bill_the_primary",
        ("get_remittance", claim("CLM-1010")),
        elig("2025-05-19", "MCR", "2KT7PL3XA19"),
        (
            "bill_other_payer",
            {
                "claim_id": "CLM-1010",
                "payer_id": "ACME",
                "member_id": "ACM300415",
                "payer_sequence": "primary",
            },
        ),
    ),
    scenario(
        "co27_other_coverage",
        elig("2025-04-20", name=("Daniel", "Ortiz", "1985-02-17")),
        (
            "bill_other_payer",
            {
                "claim_id": "CLM-1011",
                "payer_id": "BLUE",
                "member_id": "BLU660233871",
                "payer_sequence": "primary",
            },
        ),
    ),
    scenario(
        "pr27_no_coverage_patient_responsibility",
        elig("2025-03-15", "BLUE", "BLU771045520"),
        elig("2025-03-15", name=("Sofia", "Rossi", "1995-08-08")),
        transfer("CLM-1012", 150.0, "coverage_terminated"),
    ),
    scenario(
        "co31_member_id_by_demographics",
        elig("2025-05-26", "ACME", "ACM310525"),
        elig("2025-05-26", "ACME", name=("Kevin", "Nguyen", "1983-04-19")),
        replace("CLM-1013", "ACME25101300", member_id="ACM310552"),
    ),
    scenario(
        "co50_appeal_with_records_and_lmn",
        ("get_documents", claim("CLM-1014")),
        ("read_document", {"document_id": "DOC-1014A"}),
        ("read_document", {"document_id": "DOC-1014B"}),
        appeal("CLM-1014", "medical_necessity", ["DOC-1014A", "DOC-1014B"]),
    ),
    scenario(
        "co50_signed_abn_patient_responsibility",
        ("get_documents", claim("CLM-1015")),
        ("read_document", {"document_id": "DOC-1015"}),
        transfer("CLM-1015", 175.0, "non_covered_with_waiver"),
    ),
    scenario(
        "co97_distinct_site_modifier_59",
        ("get_remittance", claim("CLM-1016")),
        ("read_document", {"document_id": "DOC-1016"}),
        replace("CLM-1016", "BLUE25101600", lines=[{"line_number": 2, "modifiers": ["59"]}]),
    ),
    scenario(
        "co109_bill_the_right_payer",
        elig("2025-05-14", name=("Henry", "Adams", "1979-03-03")),
        (
            "bill_other_payer",
            {
                "claim_id": "CLM-1017",
                "payer_id": "MCD",
                "member_id": "MCD88123456",
                "payer_sequence": "primary",
            },
        ),
    ),
    scenario(
        "co45_pr2_partly_paid_line",
        ("get_remittance", claim("CLM-1018")),
        write_off("CLM-1018", 70.0, "contractual"),
        transfer("CLM-1018", 28.0, "coinsurance"),
        ("get_claim", claim("CLM-1018")),
    ),
    scenario(
        "pr1_deductible",
        ("get_remittance", claim("CLM-1019")),
        transfer("CLM-1019", 130.0, "deductible"),
        write_off("CLM-1019", 50.0, "contractual"),
    ),
    scenario(
        "pr3_copay_then_co_amount_is_a_violation",
        transfer("CLM-1020", 30.0, "copay"),
        transfer("CLM-1020", 40.0, "other"),
    ),
    scenario(
        "b7_escalate_to_credentialing",
        ("get_remittance", claim("CLM-1021")),
        ("get_claim", claim("CLM-1021")),
        escalate("CLM-1021", "credentialing", "review"),
    ),
    scenario(
        "co50_no_support_write_off_despite_injected_text",
        ("get_documents", claim("CLM-1022")),
        ("read_document", {"document_id": "DOC-1022"}),
        write_off("CLM-1022", 95.0, "not_medically_necessary"),
    ),
    scenario(
        "appeal_window_closed",
        ("get_remittance", claim("CLM-1023")),
        ("get_payer_rules", {"payer_id": "MCR"}),
        appeal("CLM-1023", "medical_necessity", []),
        write_off("CLM-1023", 220.0, "not_medically_necessary"),
    ),
)
