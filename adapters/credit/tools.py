"""The credit-underwriting tools: one `ToolSpec` each, shared by the sim and the live backend."""

from __future__ import annotations

from typing import Any

from adapters.credit import args, results
from adapters.spec import ToolSpec
from schemas.tools import SideEffect

READ, WRITE, IRREVERSIBLE = SideEffect.READ, SideEffect.WRITE, SideEffect.IRREVERSIBLE

RECORD = "record_recommendation"
REQUEST = "request_information"
ESCALATE = "escalate_to_committee"

CREDIT_TOOLS: list[ToolSpec[Any, Any]] = [
    ToolSpec(
        "get_package",
        "Read a credit package's overview: borrower (industry, reporting currency, fiscal year end, "
        "largest customer's share of revenue), sponsor (and any prior default), the periods "
        "delivered (fiscal years and quarters, restated or not), FX rates into the facility "
        "currency, its status and the borrower's answers so far.",
        args.GetPackageArgs,
        results.PackageResult,
        READ,
    ),
    ToolSpec(
        "get_financial_statements",
        "Read one period's income statement, balance sheet and cash-flow statement, with its "
        "currency, length in months, source (workbook or PDF table) and restatement flag (with the "
        "EBITDA as first reported). The trailing twelve months are the latest four quarters.",
        args.GetFinancialStatementsArgs,
        results.FinancialStatementsResult,
        READ,
    ),
    ToolSpec(
        "get_ebitda_bridge",
        "Read management's TTM EBITDA bridge: reported EBITDA and each add-back with its category, "
        "whether evidence supports it and whether the cost recurs. Accept only supported, "
        "non-recurring add-backs; projected synergies only up to the fund policy's cap.",
        args.GetEbitdaBridgeArgs,
        results.EbitdaBridgeResult,
        READ,
    ),
    ToolSpec(
        "get_term_sheet",
        "Read the proposed facility (amount, currency, tenor, all-in rate, amortisation, revolver) "
        "and its maintenance covenants, equity contribution and collateral.",
        args.GetTermSheetArgs,
        results.TermSheetResult,
        READ,
    ),
    ToolSpec(
        "get_existing_debt",
        "List the borrower's existing debt: seniority, outstanding, currency, rate, scheduled "
        "principal, and whether the proposed facility refinances it at closing.",
        args.GetExistingDebtArgs,
        results.ExistingDebtResult,
        READ,
    ),
    ToolSpec(
        "get_fund_policy",
        "Read the fund's underwriting policy: leverage, coverage and headroom thresholds, the "
        "add-back cap, customer concentration limit, restatement look-back and the tolerances.",
        args.GetFundPolicyArgs,
        results.FundPolicyResult,
        READ,
    ),
    ToolSpec(
        RECORD,
        "Record your recommendation (approve, approve with conditions, decline) with the figures "
        "you relied on, the conditions of an approval, and the credit memo. Ends the work on the "
        "package.",
        args.RecordRecommendationArgs,
        results.RecommendationResult,
        WRITE,
    ),
    ToolSpec(
        REQUEST,
        "Ask the borrower for information: a restatement reconciliation, a missing quarter, "
        "support for add-backs, customer contracts, a fiscal-year bridge. The answer comes back at "
        "once: delivered (a missing quarter joins the package) or to follow.",
        args.RequestInformationArgs,
        results.InformationRequestResult,
        WRITE,
    ),
    ToolSpec(
        ESCALATE,
        "Hand the package to the investment committee with your recommended decision, the "
        "figures and a memo; for what fund policy reserves to the committee. Ends your work on it.",
        args.EscalateToCommitteeArgs,
        results.EscalationResult,
        IRREVERSIBLE,
    ),
]

CREDIT_TOOLS_BY_NAME: dict[str, ToolSpec[Any, Any]] = {spec.name: spec for spec in CREDIT_TOOLS}
