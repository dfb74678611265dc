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
        LineSpec("operating_costs", "Operating costs", "negative"),
        LineSpec("ebitda", "EBITDA", "any", (("revenue", 1), ("operating_costs", 1))),
        LineSpec("depreciation_amortisation", "Depreciation and amortisation", "negative"),
        LineSpec("interest_expense", "Interest expense", "negative"),
        LineSpec("tax_and_other", "Tax and other items", "negative"),
        LineSpec(
            "net_income",
            "Net income",
            "any",
            (("ebitda", 1), ("depreciation_amortisation", 1), ("interest_expense", 1), ("tax_and_other", 1)),
        ),
    ),
    "balance": (
        LineSpec("cash", "Cash and equivalents", "positive"),
        LineSpec("other_assets", "Other assets", "positive"),
        LineSpec("total_assets", "Total assets", "positive", (("cash", 1), ("other_assets", 1))),
        LineSpec("total_debt", "Total debt", "positive"),
        LineSpec("other_liabilities", "Other liabilities", "positive"),
        LineSpec(
            "total_equity",
            "Total equity",
            "any",
            (("total_assets", 1), ("total_debt", -1), ("other_liabilities", -1)),
        ),
    ),
    "cash_flow": (
        LineSpec("working_capital_released", "Decrease in working capital", "positive"),
        LineSpec("working_capital_absorbed", "Increase in working capital", "negative"),
        LineSpec("cash_taxes", "Cash taxes paid", "negative"),
        LineSpec("capex", "Capital expenditure", "negative"),
        LineSpec("cash_interest", "Cash interest paid", "negative"),
    ),
}
"""Every line whose sign can go either way is a total of lines whose sign cannot, directly or
through totals checked before it: a sign lost anywhere breaks a convention or a sum."""

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
