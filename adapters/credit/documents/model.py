"""A statement as a document carries it: the company, currency, unit, and periods of figures."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import Field, field_validator

from adapters.credit.documents.layout import StatementKind
from schemas.base import Contract

UNITS: dict[str, int] = {"units": 1, "thousands": 1_000, "millions": 1_000_000}
"""How a document states its unit, and the multiplier to whole currency units."""


class Period(Contract):
    """One column of a statement: a fiscal year, a quarter, or a trailing twelve months."""

    label: str = Field(pattern=r"^\S+$", max_length=40)
    """The column heading as printed (`FY2024`, `FY2024-restated`, `Q3-FY25`, `TTM-Mar25`)."""
    kind: Literal["year", "quarter"] = "year"
    """A fiscal year (a short or long one after a change of year end included) or a quarter."""
    start: date
    """The first day of the period."""
    end: date
    """The last day of the period."""
    months: int = Field(ge=1, le=24)
    """Its length in months (12 for a year; 3 for a quarter; other lengths when a fiscal year end
    changed and a short or long year bridges the two)."""
    restated: bool = False
    """Whether the figures restate ones published earlier for the same period."""
    restated_on: date | None = None
    """When the restatement was issued, where the document says."""
    original_ebitda: Decimal | None = None
    """EBITDA as first reported, for a restated period whose document states it."""
    values: dict[str, Decimal | None]
    """Line key → figure in the statement's unit; None where the document shows no figure."""

    @field_validator("values")
    @classmethod
    def _whole(cls, values: dict[str, Decimal | None]) -> dict[str, Decimal | None]:
        # Statements print whole figures in their unit; a fraction would not survive printing.
        for key, value in values.items():
            if value is not None and (not value.is_finite() or value != value.to_integral_value()):
                raise ValueError(f"{key}: {value} is not a whole figure in the statement's unit")
        return values


class Statement(Contract):
    """One statement (income, balance sheet, cash flow) of one company, several periods."""

    kind: StatementKind
    """Which statement."""
    company: str = Field(min_length=1, max_length=120)
    """The reporting entity as the document names it."""
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    """ISO 4217 code of every figure."""
    unit: str = "thousands"
    """`units`, `thousands` or `millions`: the multiplier of every figure."""
    fiscal_year_end: str = Field(min_length=1, max_length=20)
    """The fiscal year end as printed (`31 December`, `30 June`)."""
    periods: tuple[Period, ...]
    """Columns, oldest first."""

    def amount(self, period: str, line: str) -> Decimal | None:
        """The figure of `line` in `period`, in whole currency units."""
        value = self.period(period).values.get(line)
        return None if value is None else value * UNITS[self.unit]

    def period(self, label: str) -> Period:
        for period in self.periods:
            if period.label == label:
                return period
        raise KeyError(f"no period {label!r} in the {self.kind} statement of {self.company}")
