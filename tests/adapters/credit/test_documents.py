"""Financial statements written and read back: workbooks and extracted text tables round-trip
exactly, and OCR damage is repaired exactly or flagged, never read silently wrong."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.credit.documents import (
    LINES,
    DocumentError,
    NoiseConfig,
    ParsedStatement,
    Period,
    Statement,
    StatementKind,
    parse_text,
    read_workbook,
    render_text,
    write_workbook,
)

KINDS: tuple[StatementKind, ...] = ("income", "balance", "cash_flow")
_AMOUNT = st.integers(min_value=1, max_value=9_999_999).map(Decimal)


@st.composite
def period_values(draw: st.DrawFn, kind: StatementKind) -> dict[str, Decimal | None]:
    """Figures that obey every sign convention, add up and balance, as a real statement's do."""
    values: dict[str, Decimal | None] = {}
    for line in LINES[kind]:
        if line.sign == "negative":
            values[line.key] = -draw(_AMOUNT)
        elif line.sign == "positive":
            values[line.key] = draw(_AMOUNT)
        else:
            values[line.key] = draw(st.integers(-9_999_999, 9_999_999).map(Decimal))
    for line in LINES[kind]:
        if line.total_of:
            values[line.key] = sum((c * _d(values[k]) for k, c in line.total_of), start=Decimal(0))
    return values


def _d(value: Decimal | None) -> Decimal:
    assert value is not None
    return value


@st.composite
def statements(draw: st.DrawFn) -> Statement:
    kind = draw(st.sampled_from(KINDS))
    count = draw(st.integers(1, 5))
    year_end = draw(st.sampled_from([(12, 31), (6, 30), (3, 31), (9, 30)]))
    first = draw(st.integers(2015, 2022))
    periods = []
    for n in range(count):
        restated = draw(st.booleans())
        months = draw(st.sampled_from([12, 12, 12, 3, 9]))
        end = date(first + n, *year_end)
        periods.append(
            Period(
                label=f"FY{first + n}" + ("-restated" if restated else ""),
                kind="quarter" if months == 3 else "year",
                start=date(end.year - 1, end.month, 1),
                end=end,
                months=months,
                restated=restated,
                restated_on=date(2025, 3, 14) if restated and draw(st.booleans()) else None,
                original_ebitda=draw(st.integers(-999_999, 999_999).map(Decimal)) if restated else None,
                values=draw(period_values(kind)),
            )
        )
    return Statement(
        kind=kind,
        company=draw(st.sampled_from(["Harbour Foods Ltd", "Norrland Logistik AB", "Acme Holdings Inc"])),
        currency=draw(st.sampled_from(["USD", "EUR", "GBP", "SEK"])),
        unit=draw(st.sampled_from(["thousands", "units", "millions"])),
        fiscal_year_end=f"{year_end[1]} {['March', 'June', 'September', 'December'][[3, 6, 9, 12].index(year_end[0])]}",
        periods=tuple(periods),
    )


noise_configs = st.builds(
    NoiseConfig, seed=st.integers(0, 10_000), rate=st.floats(0.0, 0.6), kinds=st.sampled_from([
        ("separator",), ("bracket",), ("lost_brackets",), ("merge",),
        ("separator", "bracket", "lost_brackets", "merge"),
    ]),
)  # fmt: skip


def _wrong_and_unflagged(original: Statement, parsed: ParsedStatement) -> list[tuple[str, str]]:
    """(line, period) whose figure reads differently from the original and carries no suspect finding."""
    suspect = parsed.suspect()
    wrong = []
    for want, got in zip(original.periods, parsed.statement.periods, strict=True):
        for key, value in want.values.items():
            if got.values.get(key) != value and (key, want.label) not in suspect:
                wrong.append((key, want.label))
    return wrong


@settings(max_examples=60, deadline=None)
@given(statements())
def test_a_clean_text_table_reads_back_exactly_with_no_findings(statement: Statement) -> None:
    parsed = parse_text(render_text(statement))
    assert parsed.statement == statement
    assert parsed.findings == ()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(statements(), min_size=1, max_size=3))
def test_a_workbook_reads_back_exactly_with_no_findings(written: list[Statement]) -> None:
    parsed = read_workbook(write_workbook(written))
    assert [p.statement for p in parsed] == written
    assert all(p.findings == () for p in parsed)


@settings(max_examples=300, deadline=None)
@given(statements(), noise_configs)
def test_damaged_text_is_read_right_flagged_or_refused_never_silently_wrong(
    statement: Statement, noise: NoiseConfig
) -> None:
    try:
        parsed = parse_text(render_text(statement, noise))
    except DocumentError as error:
        assert error.location.startswith("line ")
        return
    assert [p.label for p in parsed.statement.periods] == [p.label for p in statement.periods]
    assert _wrong_and_unflagged(statement, parsed) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements(), noise_configs)
def test_damaged_workbook_cells_are_read_right_flagged_or_refused(
    statement: Statement, noise: NoiseConfig
) -> None:
    try:
        (parsed,) = read_workbook(write_workbook([statement], noise))
    except DocumentError as error:
        assert "!" in error.location  # names the sheet and the cell or range
        return
    assert _wrong_and_unflagged(statement, parsed) == []


@settings(max_examples=100, deadline=None)
@given(statements(), st.integers(0, 1000))
def test_separator_and_single_bracket_damage_is_repaired_exactly(statement: Statement, seed: int) -> None:
    noise = NoiseConfig(seed=seed, rate=0.5, kinds=("separator", "bracket"))
    parsed = parse_text(render_text(statement, noise))
    assert parsed.statement == statement
    assert all(f.kind == "repaired" for f in parsed.findings)


def _statement() -> Statement:
    values: dict[str, Decimal | None] = {
        "revenue": Decimal(12_345), "operating_costs": Decimal(-6_789), "ebitda": Decimal(5_556),
        "depreciation_amortisation": Decimal(-2_000), "interest_expense": Decimal(-556),
        "tax_and_other": Decimal(-1_000), "net_income": Decimal(2_000),
    }  # fmt: skip
    return Statement(
        kind="income", company="Harbour Foods Ltd", currency="EUR", fiscal_year_end="30 June",
        periods=(
            Period(label="FY2023", start=date(2022, 7, 1), end=date(2023, 6, 30), months=12, values=values),
            Period(
                label="FY2024", start=date(2023, 7, 1), end=date(2024, 6, 30), months=12, restated=True,
                restated_on=date(2025, 2, 3), original_ebitda=Decimal(6_000), values=values,
            ),
        ),
    )  # fmt: skip


def test_a_dropped_pair_of_brackets_on_a_cost_is_flagged_at_its_line() -> None:
    text = render_text(_statement()).replace("(2,000)", "2,000", 1)
    parsed = parse_text(text)
    assert parsed.statement.periods[0].values["depreciation_amortisation"] == Decimal(2_000)
    assert ("depreciation_amortisation", "FY2023") in parsed.suspect()
    line = next(n for n, t in enumerate(text.splitlines(), start=1) if t.startswith("Depreciation"))
    assert any(f.location == f"line {line}" and f.kind == "suspect" for f in parsed.findings)


def test_two_figures_run_together_are_split_when_only_one_split_reads() -> None:
    text = render_text(_statement())
    merged = re.sub(r"12,345 +12,345", "12,34512,345", text)
    assert merged != text
    parsed = parse_text(merged)
    assert parsed.statement == _statement()
    assert any("ran into" in f.message for f in parsed.findings)


def test_an_unreadable_figure_names_its_line() -> None:
    text = render_text(_statement()).replace("(6,789)", "(6,7B9)", 1)
    with pytest.raises(
        DocumentError, match=r"^line 12: Operating costs, FY2023: '\(6,7B9\)' is not a figure"
    ):
        parse_text(text)


def test_an_unreadable_workbook_cell_names_the_sheet_and_cell() -> None:
    import io

    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(write_workbook([_statement()])))
    book["Income statement"]["C17"] = "about 3k"
    out = io.BytesIO()
    book.save(out)
    with pytest.raises(DocumentError, match=r"^Income statement!C17: 'about 3k' is not a figure"):
        read_workbook(out.getvalue())


def test_a_workbook_that_is_not_xlsx_is_refused_with_a_reason() -> None:
    with pytest.raises(DocumentError, match=r"not a readable \.xlsx"):
        read_workbook(b"PK\x03\x04 not really")


def test_amounts_scale_by_the_unit() -> None:
    statement = _statement()
    assert statement.amount("FY2023", "revenue") == Decimal(12_345_000)
