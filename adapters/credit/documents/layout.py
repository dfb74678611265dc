"""The statements and their lines: labels, sign conventions and the identities totals obey.

Costs are presented negative (in brackets), as statements print them; balance-sheet amounts are
positive. The identities let a reader catch a figure whose sign or digits were lost in extraction:
a total that does not add up names every line it involves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

StatementKind = Literal["income", "balance", "cash_flow"]
Sign = Literal["positive", "negative", "any"]


@dataclass(frozen=True)
class LineSpec:
    """One line of a statement."""

    key: str
    label: str
    sign: Sign = "any"
    total_of: tuple[tuple[str, int], ...] = ()
    """(line, coefficient) pairs this line equals the sum of; empty for a line that is not a total."""


STATEMENT_TITLES: dict[StatementKind, str] = {
    "income": "Income statement",
    "balance": "Balance sheet",
    "cash_flow": "Cash flow statement",
}

LINES: dict[StatementKind, tuple[LineSpec, ...]] = {
    "income": (
        LineSpec("revenue", "Revenue", "positive"),
        LineSpec("cost_of_sales", "Cost of sales", "negative"),
        LineSpec("gross_profit", "Gross profit", "any", (("revenue", 1), ("cost_of_sales", 1))),
        LineSpec("operating_expenses", "Operating expenses", "negative"),
        LineSpec("ebitda", "EBITDA", "any", (("gross_profit", 1), ("operating_expenses", 1))),
        LineSpec("depreciation_amortisation", "Depreciation and amortisation", "negative"),
        LineSpec("ebit", "Operating profit (EBIT)", "any", (("ebitda", 1), ("depreciation_amortisation", 1))),
        LineSpec("interest_expense", "Interest expense", "negative"),
        LineSpec("tax", "Income tax", "negative"),
        LineSpec("net_income", "Net income", "any", (("ebit", 1), ("interest_expense", 1), ("tax", 1))),
    ),
    "balance": (
        LineSpec("cash", "Cash and equivalents", "positive"),
        LineSpec("receivables", "Trade receivables", "positive"),
        LineSpec("inventory", "Inventory", "positive"),
        LineSpec("fixed_assets", "Property, plant and equipment", "positive"),
        LineSpec(
            "total_assets",
            "Total assets",
            "positive",
            (("cash", 1), ("receivables", 1), ("inventory", 1), ("fixed_assets", 1)),
        ),
        LineSpec("payables", "Trade payables", "positive"),
        LineSpec("senior_debt", "Senior debt", "positive"),
        LineSpec("subordinated_debt", "Subordinated debt", "positive"),
        LineSpec(
            "total_liabilities",
            "Total liabilities",
            "positive",
            (("payables", 1), ("senior_debt", 1), ("subordinated_debt", 1)),
        ),
        LineSpec("equity", "Total equity", "any", (("total_assets", 1), ("total_liabilities", -1))),
    ),
    "cash_flow": (
        LineSpec("operating_cash_flow", "Cash from operations", "any"),
        LineSpec("capex", "Capital expenditure", "negative"),
        LineSpec("free_cash_flow", "Free cash flow", "any", (("operating_cash_flow", 1), ("capex", 1))),
        LineSpec("cash_interest", "Cash interest paid", "negative"),
        LineSpec("cash_taxes", "Cash taxes paid", "negative"),
        LineSpec("scheduled_principal", "Scheduled debt repayment", "negative"),
    ),
}

LINES_BY_KEY: dict[StatementKind, dict[str, LineSpec]] = {
    kind: {line.key: line for line in lines} for kind, lines in LINES.items()
}


def line_for_label(kind: StatementKind, text: str) -> tuple[LineSpec, str] | None:
    """The line whose label `text` starts with (case-insensitive, longest label first) and the
    rest of the text; None when no label matches. A label glued to its first value still matches."""
    folded = text.casefold()
    for line in sorted(LINES[kind], key=lambda spec: -len(spec.label)):
        if folded.startswith(line.label.casefold()):
            return line, text[len(line.label) :]
    return None
