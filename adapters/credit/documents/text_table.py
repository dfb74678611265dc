"""Statements as text tables, the way PDF-to-text extraction turns a printed page into lines.

```
Harbour Foods Ltd
Income statement
Currency: EUR   Unit: thousands   Fiscal year end: 30 June
Period                FY2023      FY2024   TTM-Mar25
Period end        2023-06-30  2024-06-30  2025-03-31
Months                    12          12          12
Restated                  no          no          no
Revenue               12,345      13,456      13,901
Cost of sales        (6,789)     (7,001)     (7,210)
```
`render_text` prints one (with `NoiseConfig` damage if asked); `parse_text` reads one back.
"""

from __future__ import annotations

import random
import re
from datetime import date
from decimal import Decimal
from typing import Literal

from adapters.credit.documents.checks import check_statement
from adapters.credit.documents.errors import DocumentError
from adapters.credit.documents.findings import Finding, ParsedStatement
from adapters.credit.documents.layout import LINES, STATEMENT_TITLES, StatementKind, line_for_label
from adapters.credit.documents.model import Period, Statement
from adapters.credit.documents.noise import NoiseConfig, damage_row
from adapters.credit.documents.numbers import cells_of, format_figure, read_figure

_META = re.compile(r"^Currency:\s*(\S+)\s+Unit:\s*(\S+)\s+Fiscal year end:\s*(.+?)\s*$")
_HEADERS = (
    "EBITDA first reported",
    "Period type",
    "Period start",
    "Period end",
    "Months",
    "Restated",
    "Period",
)


def render_text(statement: Statement, noise: NoiseConfig | None = None) -> str:
    """`statement` as an extracted text table; `noise` damages its figures (never its headers)."""
    header_rows: list[tuple[str, list[str]]] = [
        ("Period", [p.label for p in statement.periods]),
        ("Period type", [p.kind for p in statement.periods]),
        ("Period start", [p.start.isoformat() for p in statement.periods]),
        ("Period end", [p.end.isoformat() for p in statement.periods]),
        ("Months", [str(p.months) for p in statement.periods]),
        ("Restated", [restated_token(p) for p in statement.periods]),
        ("EBITDA first reported", [format_figure(p.original_ebitda) for p in statement.periods]),
    ]
    rng = random.Random(f"{noise.seed}:{statement.kind}:{statement.company}") if noise else None
    figure_rows: list[tuple[str, list[str]]] = []
    for n, line in enumerate(LINES[statement.kind]):
        tokens = [format_figure(p.values.get(line.key)) for p in statement.periods]
        if noise is not None and rng is not None:
            tokens, _ = damage_row(tokens, n, noise, rng)
        figure_rows.append((line.label, tokens))
    rows = header_rows + figure_rows
    label_width = max(len(label) for label, _ in rows) + 2
    width = max(len(token) for _, tokens in rows for token in tokens) + 2
    lines = [
        statement.company,
        STATEMENT_TITLES[statement.kind],
        f"Currency: {statement.currency}   Unit: {statement.unit}   Fiscal year end: {statement.fiscal_year_end}",
    ]
    lines += [label.ljust(label_width) + "".join(t.rjust(width) for t in tokens) for label, tokens in rows]
    return "\n".join(lines) + "\n"


def parse_text(text: str) -> ParsedStatement:
    """Read an extracted text table back; raises `DocumentError` naming the line it cannot read."""
    lines = text.splitlines()
    numbered = [(n, line.strip()) for n, line in enumerate(lines, start=1) if line.strip()]
    if len(numbered) < 7:
        raise DocumentError("line 1", "a statement needs a company, a title, a currency line and headers")
    (_, company), (title_at, title), (meta_at, meta) = numbered[:3]
    kind = _kind(title, title_at)
    match = _META.match(meta)
    if match is None:
        raise DocumentError(f"line {meta_at}", "expected 'Currency: XXX   Unit: ...   Fiscal year end: ...'")
    currency, unit, year_end = match.groups()
    headers: dict[str, tuple[int, list[str]]] = {}
    body: list[tuple[int, str]] = []
    for at, line in numbered[3:]:
        name = next((h for h in _HEADERS if line.startswith(h) and not headers.get(h)), None)
        if name is not None and not body:
            headers[name] = (at, line[len(name) :].split())
        else:
            body.append((at, line))
    labels = _header(headers, "Period", 0)
    count = len(labels)

    def row(name: str) -> tuple[str, list[str]]:
        return f"line {headers[name][0]}" if name in headers else "headers", _header(headers, name, count)

    kinds = [_kind_of(token, where) for where, tokens in [row("Period type")] for token in tokens]
    starts = [_date(token, where) for where, tokens in [row("Period start")] for token in tokens]
    ends = [_date(token, where) for where, tokens in [row("Period end")] for token in tokens]
    months = [_months(token, where) for where, tokens in [row("Months")] for token in tokens]
    restated = [read_restated(token, where) for where, tokens in [row("Restated")] for token in tokens]
    originals = [
        _figure(token, where) for where, tokens in [row("EBITDA first reported")] for token in tokens
    ]
    values: list[dict[str, Decimal | None]] = [{} for _ in labels]
    findings: list[Finding] = []
    where: dict[str, int] = {}
    for at, line in body:
        found = line_for_label(kind, line)
        if found is None:
            findings.append(
                Finding(
                    kind="suspect",
                    location=f"line {at}",
                    message=f"no statement line is labelled {line[:40]!r}; ignored",
                )
            )
            continue
        spec, rest = found
        where[spec.key] = at
        cells = cells_of(rest.split(), count)
        if isinstance(cells, str):
            raise DocumentError(f"line {at}", f"{spec.label}: {cells}")
        tokens, split = cells
        for column, token in enumerate(tokens):
            try:
                value, repairs = read_figure(token)
            except ValueError as exc:
                raise DocumentError(f"line {at}", f"{spec.label}, {labels[column]}: {exc}") from None
            if column in split:
                repairs.append(
                    f"{token!r} ran into the figure beside it; split where the digits allow only one split"
                )
            values[column][spec.key] = value
            findings += [
                Finding(
                    kind="repaired", location=f"line {at}", line=spec.key, period=labels[column], message=m
                )
                for m in repairs
            ]
    try:
        statement = Statement(
            kind=kind,
            company=company,
            currency=currency,
            unit=unit,
            fiscal_year_end=year_end,
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
        raise DocumentError(f"line {meta_at}", f"the headers do not describe a statement: {exc}") from None
    findings += check_statement(statement, lambda key, _: f"line {where.get(key, '?')}")
    return ParsedStatement(statement=statement, findings=tuple(findings))


def _kind(title: str, at: int) -> StatementKind:
    for kind, name in STATEMENT_TITLES.items():
        if title.casefold() == name.casefold():
            return kind
    known = ", ".join(STATEMENT_TITLES.values())
    raise DocumentError(f"line {at}", f"{title!r} is not a statement title this reader knows ({known})")


def _header(headers: dict[str, tuple[int, list[str]]], name: str, count: int) -> list[str]:
    if name not in headers:
        raise DocumentError("headers", f"the {name!r} row is missing")
    at, tokens = headers[name]
    if not tokens or (count and len(tokens) != count):
        raise DocumentError(f"line {at}", f"the {name!r} row has {len(tokens)} entries for {count} periods")
    return tokens


def _date(token: str, where: str) -> date:
    try:
        return date.fromisoformat(token)
    except ValueError:
        raise DocumentError(where, f"{token!r} is not a date (YYYY-MM-DD)") from None


def restated_token(period: Period) -> str:
    """`no`, `yes`, or the date the restatement was issued."""
    if not period.restated:
        return "no"
    return period.restated_on.isoformat() if period.restated_on else "yes"


def read_restated(token: str, where: str) -> date | bool:
    """False for `no`, True for `yes`, the date for a restatement dated in the document."""
    folded = token.strip().casefold()
    if folded in ("no", "yes"):
        return folded == "yes"
    try:
        return date.fromisoformat(folded)
    except ValueError:
        raise DocumentError(where, f"{token!r} is not yes, no or the date of a restatement") from None


def _figure(token: str, where: str) -> Decimal | None:
    try:
        value, repairs = read_figure(token)
    except ValueError as exc:
        raise DocumentError(where, str(exc)) from None
    if repairs:
        raise DocumentError(where, f"{token!r} is not printed as a figure is")
    return value


def dated_restatement(restated: date | bool) -> date | None:
    return restated if isinstance(restated, date) else None


def _kind_of(token: str, where: str) -> Literal["year", "quarter"]:
    if token == "year":
        return "year"
    if token == "quarter":
        return "quarter"
    raise DocumentError(where, f"{token!r} is not a period type (year or quarter)")


def _months(token: str, where: str) -> int:
    if not token.isdigit():
        raise DocumentError(where, f"{token!r} is not a number of months")
    return int(token)
