"""Quarter and fiscal-year dates, by month arithmetic (no clock)."""

from __future__ import annotations

import calendar
from datetime import date


def month_end(year: int, month: int) -> date:
    """The last day of a month."""
    return date(year, month, calendar.monthrange(year, month)[1])


def shift(year: int, month: int, months: int) -> tuple[int, int]:
    """(year, month) moved by `months` (negative: back)."""
    index = year * 12 + (month - 1) + months
    return index // 12, index % 12 + 1


def period_bounds(end_year: int, end_month: int, months: int) -> tuple[date, date]:
    """First and last day of the `months`-long period ending with (end_year, end_month)."""
    start_year, start_month = shift(end_year, end_month, -(months - 1))
    return date(start_year, start_month, 1), month_end(end_year, end_month)


def quarter_label(end: date, fiscal_year_end_month: int) -> str:
    """`2025Q2`: the fiscal year (named by the calendar year it ends in) and quarter of a quarter end."""
    months_after_fye = (end.month - fiscal_year_end_month) % 12
    quarter = 4 if months_after_fye == 0 else months_after_fye // 3
    fiscal_year = end.year if months_after_fye == 0 or end.month <= fiscal_year_end_month else end.year + 1
    return f"{fiscal_year}Q{quarter}"
