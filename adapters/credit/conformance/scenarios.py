"""The scripted scenarios: good moves, wrong moves, refusals and malformed calls over the seed world."""

from __future__ import annotations

from adapters.conformance import Scenario, scenario
from adapters.credit.conformance.steps import (
    CURE_LIMIT,
    LOWER_AMOUNT,
    ask,
    escalate,
    pkg,
    read_all,
    recommend,
    statements,
)

PERIODS = ("FY2022", "FY2023", "FY2024", "2024Q4", "2025Q1", "2025Q2", "2025Q3")

# fmt: off
READS: tuple[Scenario, ...] = (
    scenario("a_clean_package_read_in_full", *read_all("PKG-1001"), *(statements("PKG-1001", p) for p in PERIODS)),
    scenario("pdf_table_periods_in_another_currency", *read_all("PKG-1002"),
             *(statements("PKG-1002", p) for p in PERIODS)),
    scenario("a_restated_year_shows_its_first_reported_ebitda", pkg("get_package", "PKG-1003"),
             statements("PKG-1003", "FY2024"), statements("PKG-1003", "FY2023")),
    scenario("a_stub_year_after_a_change_of_fiscal_year_end", pkg("get_package", "PKG-1005"),
             statements("PKG-1005", "FY2025"), statements("PKG-1005", "FY2024"), statements("PKG-1005", "2026Q2")),
    scenario("a_loss_making_borrower_with_a_defaulted_sponsor", *read_all("PKG-1006"),
             statements("PKG-1006", "2025Q3"), statements("PKG-1006", "FY2024")),
    scenario("the_fund_policy_reads_alike", ("get_fund_policy", {}), ("get_fund_policy", {})),
)

DECISIONS: tuple[Scenario, ...] = (
    scenario("approve_a_clean_package", *read_all("PKG-1001"), recommend("PKG-1001", "approve"),
             pkg("get_package", "PKG-1001")),
    scenario("approve_with_a_lower_amount", recommend("PKG-1002", "approve_with_conditions", [LOWER_AMOUNT]),
             pkg("get_package", "PKG-1002")),
    scenario("decline_a_loss_maker", statements("PKG-1006", "2025Q3"), recommend("PKG-1006", "decline")),
    scenario("escalate_a_defaulted_sponsor_and_covenant_lite_terms",
             escalate("PKG-1006", "sponsor_prior_default", "covenant_lite", "non_positive_ebitda"),
             pkg("get_package", "PKG-1006")),
    scenario("two_packages_one_after_the_other_number_their_records",
             recommend("PKG-1001", "approve"), escalate("PKG-1002", "thin_covenant_headroom", decision="approve"),
             recommend("PKG-1006", "decline")),
)

REQUESTS: tuple[Scenario, ...] = (
    scenario("a_restatement_reconciliation_is_delivered", ask("PKG-1003", "restatement_reconciliation"),
             pkg("get_package", "PKG-1003"), recommend("PKG-1003", "approve")),
    scenario("a_missing_quarter_joins_the_package", pkg("get_package", "PKG-1004"),
             statements("PKG-1004", "2025Q2"), ask("PKG-1004", "missing_quarter"),
             pkg("get_package", "PKG-1004"), statements("PKG-1004", "2025Q2")),
    scenario("a_fiscal_year_bridge_is_to_follow", ask("PKG-1005", "fiscal_year_bridge"),
             pkg("get_package", "PKG-1005")),
    scenario("sources_and_uses_delivered_join_the_debt_table", pkg("get_existing_debt", "PKG-1007"),
             ask("PKG-1007", "sources_and_uses"), pkg("get_existing_debt", "PKG-1007")),
    scenario("a_quality_of_earnings_report_restates_the_addback_support", pkg("get_ebitda_bridge", "PKG-1007"),
             ask("PKG-1007", "quality_of_earnings"), pkg("get_ebitda_bridge", "PKG-1007")),
    scenario("certificates_and_breach_history_are_facts_received",
             ask("PKG-1007", "compliance_certificates", "breach_history", "customer_contracts"),
             pkg("get_package", "PKG-1007"), *read_all("PKG-1007")),
    scenario("a_quality_of_earnings_report_restates_a_quarter_and_supports_the_addback",
             statements("PKG-1008", "2025Q2"), pkg("get_ebitda_bridge", "PKG-1008"),
             ask("PKG-1008", "quality_of_earnings", "compliance_certificates"), pkg("get_package", "PKG-1008"),
             statements("PKG-1008", "2025Q2"), pkg("get_ebitda_bridge", "PKG-1008"), *read_all("PKG-1008")),
    scenario("cure_rights_on_the_term_sheet_read_alike", pkg("get_term_sheet", "PKG-1008"),
             recommend("PKG-1008", "approve_with_conditions", [CURE_LIMIT]), pkg("get_package", "PKG-1008")),
    scenario("certificates_breach_history_and_a_customer_notice_change_the_file",
             pkg("get_existing_debt", "PKG-1009"), pkg("get_package", "PKG-1009"),
             ask("PKG-1009", "compliance_certificates", "breach_history", "customer_contracts"),
             pkg("get_package", "PKG-1009"), pkg("get_existing_debt", "PKG-1009"), *read_all("PKG-1009"),
             escalate("PKG-1009", "sponsor_prior_default", decision="decline"), pkg("get_package", "PKG-1009")),
    scenario("items_the_borrower_has_nothing_for", ask("PKG-1001", "customer_contracts", "addback_support")),
    scenario("asking_twice_for_the_same_item_is_refused", ask("PKG-1003", "restatement_reconciliation"),
             ask("PKG-1003", "restatement_reconciliation", "addback_support"), ask("PKG-1003", "addback_support")),
)

REFUSALS: tuple[Scenario, ...] = (
    scenario("unknown_packages_and_periods_are_refused", pkg("get_package", "PKG-9999"),
             statements("PKG-1001", "FY2019"), statements("PKG-9999", "FY2024"), pkg("get_term_sheet", "PKG-0")),
    scenario("conditions_must_match_the_decision", recommend("PKG-1001", "approve_with_conditions"),
             recommend("PKG-1001", "approve", [LOWER_AMOUNT]), recommend("PKG-1001", "decline")),
    scenario("nothing_more_is_recorded_on_a_decided_package", recommend("PKG-1001", "approve"),
             recommend("PKG-1001", "decline"), ask("PKG-1001", "customer_contracts"),
             escalate("PKG-1001", "other")),
    scenario("an_escalated_package_is_out_of_the_analysts_hands",
             escalate("PKG-1002", "leverage_above_policy"), recommend("PKG-1002", "approve"),
             ask("PKG-1002", "addback_support")),
    scenario("malformed_arguments_fail_validation",
             ("get_financial_statements", {"package_id": "PKG-1001"}),
             ("record_recommendation", {"package_id": "PKG-1001", "decision": "maybe", "figures": {}, "memo": "ok"}),
             ("request_information", {"package_id": "PKG-1001", "items": [], "message": "send everything please"}),
             ("escalate_to_committee", {"package_id": "PKG-1001", "reasons": ["gut_feeling"]}),
             ("get_package", {"package_id": ""})),
    scenario("an_unknown_tool_is_refused", ("approve_everything", {"package_id": "PKG-1001"}),
             pkg("get_package", "PKG-1001")),
)
# fmt: on
