"""A package's period printed as the borrower sent it (workbook or PDF text) reads back as the same
`FinancialPeriod`; damage is repaired exactly or refused, never handed on as a wrong figure."""

from __future__ import annotations

from datetime import date

import pytest

from adapters.credit.documents import DocumentError, NoiseConfig
from adapters.credit.documents.periods import (
    TEXT_MEDIA_TYPE,
    XLSX_MEDIA_TYPE,
    NotPrintable,
    period_document,
    read_period_document,
)
from adapters.credit.models import BalanceSheet, CashFlowStatement, FinancialPeriod, IncomeStatement


def _period(**changes: object) -> FinancialPeriod:
    period = FinancialPeriod(
        label="FY2024", kind="FY", start=date(2023, 7, 1), end=date(2024, 6, 30), months=12, currency="EUR",
        income=IncomeStatement(revenue=48_000_000.0, ebitda=9_000_000.0, depreciation_amortisation=2_700_000.0,
                               interest_expense=1_200_000.0, net_income=4_500_000.0),
        balance=BalanceSheet(cash=3_000_000.0, total_debt=30_000_000.0, total_equity=18_000_000.0),
        cash_flow=CashFlowStatement(capex=1_100_000.0, cash_taxes=600_000.0, change_in_working_capital=-250_000.0,
                                    cash_interest=1_150_000.0),
    )  # fmt: skip
    return period.model_copy(update=changes)


@pytest.mark.parametrize("source", ["workbook", "pdf_table"])
def test_a_period_reads_back_exactly_from_the_document_it_arrived_as(source: str) -> None:
    period = _period(source=source, restated=True, restated_on=date(2025, 2, 1), original_ebitda=9_400_000.0)
    data, media_type = period_document(period, "Harbour Foods Ltd", 6)
    assert media_type == (XLSX_MEDIA_TYPE if source == "workbook" else TEXT_MEDIA_TYPE)
    assert read_period_document(data, media_type) == period


def test_a_loss_making_stub_quarter_in_whole_units_reads_back_exactly() -> None:
    period = _period(
        label="2025Q1", kind="Q", start=date(2024, 7, 1), end=date(2024, 9, 30), months=3, source="pdf_table",
        income=IncomeStatement(revenue=4_001_234.0, ebitda=-350_017.0, depreciation_amortisation=105_000.0,
                               interest_expense=0.0, net_income=-455_017.0),
    )  # fmt: skip
    assert read_period_document(*period_document(period, "Acme Holdings Inc", 12)) == period


def test_extraction_damage_is_repaired_or_refused_never_wrong() -> None:
    period = _period(source="pdf_table", balance=BalanceSheet(cash=3e6, total_debt=3e7, total_equity=-2e6))
    outcomes = set()
    for seed in range(40):
        noise = NoiseConfig(seed=seed, rate=0.3)
        try:
            read = read_period_document(*period_document(period, "Harbour Foods Ltd", 6, noise))
        except DocumentError as error:
            outcomes.add("refused")
            assert error.location.startswith(("line ", "document"))
            continue
        assert read == period
        outcomes.add("read")
    assert outcomes == {"read", "refused"}


def test_a_figure_with_a_fraction_is_not_printable() -> None:
    period = _period(income=_period().income.model_copy(update={"revenue": 48_000_000.5}))
    with pytest.raises(NotPrintable, match="fraction"):
        period_document(period, "Harbour Foods Ltd", 6)


def test_a_document_of_another_media_type_is_refused() -> None:
    with pytest.raises(DocumentError, match="xlsx or text"):
        read_period_document(b"%PDF-1.7", "application/pdf")
