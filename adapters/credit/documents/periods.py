"""One `FinancialPeriod` of a package as the document the borrower sent, and back.

The deal system keeps each period as figures; the borrower delivered it as a workbook or as pages
of a PDF. `period_document` prints a period the way it arrived (`.xlsx` bytes, or the extracted
text of its three statements, pages split by form feeds) and `read_period_document` reads one back.
A figure the reader repaired comes back exact; a figure it finds suspect, or one it cannot read,
raises `DocumentError`: a period is never handed on with a figure that may be wrong.
"""

from __future__ import annotations

import calendar
from decimal import Decimal
from typing import Literal

from pydantic import ValidationError

from adapters.credit.documents.checks import check_statement
from adapters.credit.documents.errors import DocumentError
from adapters.credit.documents.findings import ParsedStatement
from adapters.credit.documents.layout import StatementKind
from adapters.credit.documents.model import UNITS, Period, Statement
from adapters.credit.documents.noise import NoiseConfig
from adapters.credit.documents.text_table import parse_text, render_text
from adapters.credit.documents.workbook import read_workbook, write_workbook
from adapters.credit.models import (
    BalanceSheet,
    CashFlowStatement,
    FinancialPeriod,
    IncomeStatement,
    SourceFormat,
)

XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
TEXT_MEDIA_TYPE = "text/plain"
PAGE_BREAK = "\f"


class NotPrintable(ValueError):
    """A period whose figures a statement cannot print (fractions, or a cost that is a gain)."""


def fiscal_year_end(month: int) -> str:
    """`31 December` for 12: how a statement heads its fiscal year end."""
    return f"{calendar.monthrange(2001, month)[1]} {calendar.month_name[month]}"


def period_statements(period: FinancialPeriod, company: str, year_end_month: int) -> list[Statement]:
    """The income statement, balance sheet and cash-flow statement of `period`; `NotPrintable`
    when a figure has no whole representation or breaks a line's sign convention."""
    inc, bal, cf = period.income, period.balance, period.cash_flow
    other_liabilities = max(bal.cash - bal.total_debt - bal.total_equity, 0.0)
    other_assets = bal.total_debt + bal.total_equity + other_liabilities - bal.cash
    figures: dict[StatementKind, dict[str, float]] = {
        "income": {
            "revenue": inc.revenue,
            "operating_costs": inc.ebitda - inc.revenue,
            "ebitda": inc.ebitda,
            "depreciation_amortisation": -inc.depreciation_amortisation,
            "interest_expense": -inc.interest_expense,
            "tax_and_other": inc.net_income
            - inc.ebitda
            + inc.depreciation_amortisation
            + inc.interest_expense,
            "net_income": inc.net_income,
        },
        "balance": {
            "cash": bal.cash,
            "other_assets": other_assets,
            "total_assets": bal.cash + other_assets,
            "total_debt": bal.total_debt,
            "other_liabilities": other_liabilities,
            "total_equity": bal.total_equity,
        },
        "cash_flow": {
            "working_capital_released": max(-cf.change_in_working_capital, 0.0),
            "working_capital_absorbed": -max(cf.change_in_working_capital, 0.0),
            "cash_taxes": -cf.cash_taxes,
            "capex": -cf.capex,
            "cash_interest": -cf.cash_interest,
        },
    }
    amounts = [*(v for f in figures.values() for v in f.values()), period.original_ebitda or 0.0]
    unit = _unit(amounts, period.label)
    scale = Decimal(UNITS[unit])
    base = Period(
        label=period.label,
        kind="year" if period.kind == "FY" else "quarter",
        start=period.start,
        end=period.end,
        months=period.months,
        restated=period.restated,
        restated_on=period.restated_on,
        original_ebitda=None if period.original_ebitda is None else _decimal(period.original_ebitda) / scale,
        values={},
    )
    out = []
    for kind, values in figures.items():
        scaled = {key: _decimal(value) / scale for key, value in values.items()}
        out.append(
            Statement(
                kind=kind,
                company=company,
                currency=period.currency,
                unit=unit,
                fiscal_year_end=fiscal_year_end(year_end_month),
                periods=(base.model_copy(update={"values": scaled}),),
            )
        )
    problems = _sign_problems(out)
    if problems:
        raise NotPrintable(f"{period.label}: {problems}")
    return out


def period_document(
    period: FinancialPeriod, company: str, year_end_month: int, noise: NoiseConfig | None = None
) -> tuple[bytes, str]:
    """The period as the borrower sent it, with its media type: a workbook for a `workbook`
    period, extracted PDF text for a `pdf_table` one (`noise`: the extraction's damage)."""
    statements = period_statements(period, company, year_end_month)
    if period.source == "workbook":
        return write_workbook(statements, noise), XLSX_MEDIA_TYPE
    text = PAGE_BREAK.join(render_text(statement, noise) for statement in statements)
    return text.encode(), TEXT_MEDIA_TYPE


def read_period_document(data: bytes, media_type: str) -> FinancialPeriod:
    """The period a document holds; `DocumentError` for a figure unreadable or suspect."""
    source: SourceFormat
    if media_type.startswith(XLSX_MEDIA_TYPE):
        parsed, source = read_workbook(data), "workbook"
    elif media_type.startswith(TEXT_MEDIA_TYPE):
        try:
            text = data.decode()
        except UnicodeDecodeError as exc:
            raise DocumentError("document", f"not UTF-8 text ({exc})") from None
        parsed, source = [parse_text(page) for page in text.split(PAGE_BREAK) if page.strip()], "pdf_table"
    else:
        raise DocumentError("document", f"a period document is .xlsx or text, not {media_type!r}")
    return financial_period(parsed, source)


def financial_period(parsed: list[ParsedStatement], source: SourceFormat) -> FinancialPeriod:
    """The `FinancialPeriod` of three read statements of one period."""
    by_kind = {p.statement.kind: p for p in parsed}
    missing = {"income", "balance", "cash_flow"} - set(by_kind)
    if missing or len(parsed) != 3:
        raise DocumentError("document", f"a period needs its three statements; missing: {sorted(missing)}")
    for statement in parsed:
        for finding in statement.findings:
            if finding.kind == "suspect":
                raise DocumentError(finding.location, f"a figure may be wrong: {finding.message}")
        if len(statement.statement.periods) != 1:
            raise DocumentError("document", "a period document holds exactly one period")
    inc, bal, cf = (by_kind[k].statement for k in ("income", "balance", "cash_flow"))
    head = inc.periods[0]

    def amount(statement: Statement, line: str) -> float:
        value = statement.amount(head.label if statement is inc else statement.periods[0].label, line)
        if value is None:
            raise DocumentError("document", f"the {statement.kind} statement has no figure for {line}")
        return float(value)

    scale = Decimal(UNITS[inc.unit])
    try:
        return FinancialPeriod(
            label=head.label,
            kind="FY" if head.kind == "year" else "Q",
            start=head.start,
            end=head.end,
            months=head.months,
            currency=_currency(inc.currency),
            source=source,
            restated=head.restated,
            restated_on=head.restated_on,
            original_ebitda=None if head.original_ebitda is None else float(head.original_ebitda * scale),
            income=IncomeStatement(
                revenue=amount(inc, "revenue"),
                ebitda=amount(inc, "ebitda"),
                depreciation_amortisation=-amount(inc, "depreciation_amortisation"),
                interest_expense=-amount(inc, "interest_expense"),
                net_income=amount(inc, "net_income"),
            ),
            balance=BalanceSheet(
                cash=amount(bal, "cash"),
                total_debt=amount(bal, "total_debt"),
                total_equity=amount(bal, "total_equity"),
            ),
            cash_flow=CashFlowStatement(
                capex=-amount(cf, "capex"),
                cash_taxes=-amount(cf, "cash_taxes"),
                change_in_working_capital=-(
                    amount(cf, "working_capital_released") + amount(cf, "working_capital_absorbed")
                ),
                cash_interest=-amount(cf, "cash_interest"),
            ),
        )
    except ValidationError as exc:
        raise DocumentError("document", f"the statements do not make a period: {exc}") from None


def _currency(code: str) -> Literal["USD", "EUR", "GBP", "CAD"]:
    if code in ("USD", "EUR", "GBP", "CAD"):
        return code  # type: ignore[return-value]
    raise DocumentError("document", f"{code!r} is not a currency the deal system keeps")


def _decimal(value: float) -> Decimal:
    return Decimal(repr(value)) + 0  # `+ 0` turns -0.0 into 0


def _unit(amounts: list[float], label: str) -> str:
    if all(float(v).is_integer() and v % 1000 == 0 for v in amounts):
        return "thousands"
    if all(float(v).is_integer() for v in amounts):
        return "units"
    raise NotPrintable(f"{label}: a figure has a fraction; statements print whole figures")


def _sign_problems(statements: list[Statement]) -> str:
    found = [f.message for s in statements for f in check_statement(s, lambda line, period: line)]
    return "; ".join(found[:3])
