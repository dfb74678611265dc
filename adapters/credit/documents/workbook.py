"""Statements as an Excel workbook, one sheet per statement, the way a borrower's finance team
sends them: a title block, a header block (period, period end, months, restated), then one row
per line with the figures as numbers (or, in a hand-kept workbook, as text).

```
A1 company          A2 statement title
A3 Currency | EUR   A4 Unit | thousands   A5 Fiscal year end | 30 June
A7 Period | FY2023 | FY2024 ...   A8 Period type   A9 Period start   A10 Period end   A11 Months
A12 Restated (no, yes, or the date of the restatement)   A13 EBITDA first reported
A15.. Revenue | 12345 | 13456 ...
```
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from openpyxl import Workbook, load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from adapters.credit.documents.checks import check_statement
from adapters.credit.documents.errors import DocumentError
from adapters.credit.documents.findings import Finding, ParsedStatement
from adapters.credit.documents.layout import LINES, STATEMENT_TITLES, StatementKind, line_for_label
from adapters.credit.documents.model import Period, Statement
from adapters.credit.documents.noise import NoiseConfig, damage_row
from adapters.credit.documents.numbers import format_figure, read_figure
from adapters.credit.documents.text_table import dated_restatement, read_restated, restated_token

FIGURE_FORMAT = "#,##0;(#,##0);-"
_HEADER_ROWS = (
    "Currency",
    "Unit",
    "Fiscal year end",
    "Period",
    "Period type",
    "Period start",
    "Period end",
    "Months",
    "Restated",
)
_FIRST_FIGURE_ROW = 15


def write_workbook(statements: Sequence[Statement], noise: NoiseConfig | None = None) -> bytes:
    """The statements as `.xlsx` bytes; `noise` turns some figures into damaged text cells (and,
    for `merge`, merges a figure's cell with the next one, as a hand-kept workbook does)."""
    book = Workbook()
    book.remove(book.active) if book.active is not None else None
    for n, statement in enumerate(statements):
        title = STATEMENT_TITLES[statement.kind]
        sheet = book.create_sheet(title if title not in book.sheetnames else f"{title} ({n + 1})")
        _write_sheet(sheet, statement, noise)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _write_sheet(sheet: Worksheet, statement: Statement, noise: NoiseConfig | None) -> None:
    sheet["A1"] = statement.company
    sheet["A2"] = STATEMENT_TITLES[statement.kind]
    for row, (name, value) in enumerate(
        (
            ("Currency", statement.currency),
            ("Unit", statement.unit),
            ("Fiscal year end", statement.fiscal_year_end),
        ),
        start=3,
    ):
        sheet.cell(row, 1, name)
        sheet.cell(row, 2, value)
    headers: list[tuple[str, list[Any]]] = [
        ("Period", [p.label for p in statement.periods]),
        ("Period type", [p.kind for p in statement.periods]),
        ("Period start", [p.start for p in statement.periods]),
        ("Period end", [p.end for p in statement.periods]),
        ("Months", [p.months for p in statement.periods]),
        ("Restated", [restated_token(p) for p in statement.periods]),
        (
            "EBITDA first reported",
            [None if p.original_ebitda is None else int(p.original_ebitda) for p in statement.periods],
        ),
    ]
    for row, (name, cells) in enumerate(headers, start=7):
        sheet.cell(row, 1, name)
        for column, value in enumerate(cells, start=2):
            sheet.cell(row, column, value)
    rng = random.Random(f"{noise.seed}:{statement.kind}:{statement.company}:xlsx") if noise else None
    for n, line in enumerate(LINES[statement.kind]):
        row = _FIRST_FIGURE_ROW + n
        sheet.cell(row, 1, line.label)
        figures = [p.values.get(line.key) for p in statement.periods]
        damaged = _damaged(figures, n, noise, rng)
        for column, figure in enumerate(figures, start=2):
            cell = sheet.cell(row, column, int(figure) if figure is not None else None)
            cell.number_format = FIGURE_FORMAT
            if column - 2 in damaged:
                cell.value = damaged[column - 2]
        for column in (c for c, token in damaged.items() if token is None):
            sheet.merge_cells(start_row=row, start_column=column + 2, end_row=row, end_column=column + 3)


def _damaged(
    figures: list[Decimal | None], row: int, noise: NoiseConfig | None, rng: random.Random | None
) -> dict[int, str | None]:
    """Column → damaged text of the figure, or None where the cell is merged with the next."""
    if noise is None or rng is None:
        return {}
    tokens = [format_figure(figure) for figure in figures]
    _, damage = damage_row(tokens, row, noise, rng)
    out: dict[int, str | None] = {}
    for hit in damage:
        if hit.kind == "merge":
            out[hit.column] = None
        else:
            out[hit.column] = damage_row(
                [tokens[hit.column]], row, noise.model_copy(update={"rate": 1.0, "kinds": (hit.kind,)}), rng
            )[0][0]
    return out


def read_workbook(data: bytes) -> list[ParsedStatement]:
    """Every statement sheet of an `.xlsx`; raises `DocumentError` naming the cell it cannot read."""
    try:
        book = load_workbook(io.BytesIO(data), data_only=True)
    except Exception as exc:  # openpyxl raises zipfile, KeyError and XML errors for a bad file
        raise DocumentError("workbook", f"not a readable .xlsx file ({type(exc).__name__}: {exc})") from None
    return [_read_sheet(sheet) for sheet in book.worksheets]


def _read_sheet(sheet: Worksheet) -> ParsedStatement:
    name = sheet.title
    kind = _kind(sheet)
    rows = {str(sheet.cell(row, 1).value or "").strip(): row for row in range(1, _FIRST_FIGURE_ROW)}
    for header in _HEADER_ROWS:
        if header not in rows:
            raise DocumentError(
                f"{name}!A1:A{_FIRST_FIGURE_ROW - 1}", f"no {header!r} row in the header block"
            )
    labels = _row(sheet, rows["Period"])
    if not labels:
        raise DocumentError(f"{name}!B{rows['Period']}", "no period columns")
    count = len(labels)
    merged = [r for r in sheet.merged_cells.ranges if r.min_row >= _FIRST_FIGURE_ROW and r.max_col > 1]
    if merged:
        raise DocumentError(
            f"{name}!{merged[0].coord}",
            "merged cells: the figures of the periods they span cannot be told apart",
        )
    columns = range(2, count + 2)
    kinds = [_period_kind(sheet, rows["Period type"], c) for c in columns]
    starts = [_date(sheet, rows["Period start"], c) for c in columns]
    ends = [_date(sheet, rows["Period end"], c) for c in columns]
    months = [_whole(sheet, rows["Months"], c) for c in columns]
    originals = [
        _figure(
            sheet.cell(rows["EBITDA first reported"], c).value, _at(sheet, rows["EBITDA first reported"], c)
        )[0]
        for c in columns
    ]
    restated = [
        read_restated(str(sheet.cell(rows["Restated"], c).value or ""), _at(sheet, rows["Restated"], c))
        for c in columns
    ]
    values: list[dict[str, Decimal | None]] = [{} for _ in labels]
    findings: list[Finding] = []
    where: dict[str, int] = {}
    for row in range(_FIRST_FIGURE_ROW, sheet.max_row + 1):
        label = str(sheet.cell(row, 1).value or "").strip()
        if not label:
            continue
        found = line_for_label(kind, label)
        if found is None or found[1].strip():
            findings.append(
                Finding(
                    kind="suspect",
                    location=f"{name}!A{row}",
                    message=f"no statement line is labelled {label[:40]!r}; ignored",
                )
            )
            continue
        spec = found[0]
        where[spec.key] = row
        for column in range(2, count + 2):
            cell = f"{name}!{get_column_letter(column)}{row}"
            value, repairs = _figure(sheet.cell(row, column).value, cell)
            values[column - 2][spec.key] = value
            findings += [
                Finding(kind="repaired", location=cell, line=spec.key, period=labels[column - 2], message=m)
                for m in repairs
            ]
    try:
        statement = Statement(
            kind=kind,
            company=str(sheet["A1"].value or "").strip(),
            currency=str(sheet.cell(rows["Currency"], 2).value or ""),
            unit=str(sheet.cell(rows["Unit"], 2).value or ""),
            fiscal_year_end=str(sheet.cell(rows["Fiscal year end"], 2).value or ""),
            periods=tuple(
                Period(
                    label=labels[i],
                    kind=kinds[i],
                    start=starts[i],
                    end=ends[i],
                    months=months[i],
                    restated=restated[i] is not False,
                    restated_on=dated_restatement(restated[i]),
                    original_ebitda=originals[i],
                    values=values[i],
                )
                for i in range(count)
            ),
        )
    except ValueError as exc:
        raise DocumentError(
            f"{name}!A1:B5", f"the title block does not describe a statement: {exc}"
        ) from None
    index = {label: i for i, label in enumerate(labels)}
    findings += check_statement(
        statement, lambda key, period: f"{name}!{get_column_letter(index[period] + 2)}{where.get(key, '?')}"
    )
    return ParsedStatement(statement=statement, findings=tuple(findings))


def _at(sheet: Worksheet, row: int, column: int) -> str:
    return f"{sheet.title}!{get_column_letter(column)}{row}"


def _period_kind(sheet: Worksheet, row: int, column: int) -> Literal["year", "quarter"]:
    raw = str(sheet.cell(row, column).value or "").strip()
    if raw == "year":
        return "year"
    if raw == "quarter":
        return "quarter"
    raise DocumentError(_at(sheet, row, column), f"{raw!r} is not a period type (year or quarter)")


def _kind(sheet: Worksheet) -> StatementKind:
    title = str(sheet["A2"].value or "").strip().casefold()
    for kind, name in STATEMENT_TITLES.items():
        if title == name.casefold():
            return kind
    raise DocumentError(f"{sheet.title}!A2", f"{title!r} is not a statement title this reader knows")


def _row(sheet: Worksheet, row: int) -> list[str]:
    labels: list[str] = []
    for column in range(2, sheet.max_column + 1):
        value = sheet.cell(row, column).value
        if value is None or not str(value).strip():
            break
        labels.append(str(value).strip())
    return labels


def _figure(raw: Any, cell: str) -> tuple[Decimal | None, list[str]]:
    if raw is None:
        return None, []
    if isinstance(raw, bool | datetime | date):
        raise DocumentError(cell, f"{raw!r} is not a figure")
    if isinstance(raw, int | float):
        value = Decimal(str(raw))
        if value != value.to_integral_value():
            raise DocumentError(cell, f"{raw!r} is not a whole figure in the statement's unit")
        return value, []
    try:
        return read_figure(str(raw))
    except ValueError as exc:
        raise DocumentError(cell, str(exc)) from None


def _date(sheet: Worksheet, row: int, column: int) -> date:
    raw = sheet.cell(row, column).value
    if isinstance(raw, datetime):
        return raw.date()
    if isinstance(raw, date):
        return raw
    try:
        return date.fromisoformat(str(raw).strip())
    except ValueError:
        raise DocumentError(
            f"{sheet.title}!{get_column_letter(column)}{row}", f"{raw!r} is not a date"
        ) from None


def _whole(sheet: Worksheet, row: int, column: int) -> int:
    raw = sheet.cell(row, column).value
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().isdigit():
        return int(raw)
    raise DocumentError(
        f"{sheet.title}!{get_column_letter(column)}{row}", f"{raw!r} is not a number of months"
    )
