"""Checks a read statement must pass: every line's sign convention and every total's sum.

A figure that breaks one is `suspect`: extraction may have dropped its sign or misread a digit.
A total that does not add up makes every figure in it suspect, since which one is wrong is not
known from the document alone.
"""

from __future__ import annotations

from collections.abc import Callable

from adapters.credit.documents.findings import Finding
from adapters.credit.documents.layout import LINES, LINES_BY_KEY
from adapters.credit.documents.model import Statement

Locate = Callable[[str, str], str]
"""(line key, period label) → where the figure sits in the document."""


def check_statement(statement: Statement, locate: Locate) -> list[Finding]:
    """Suspect findings for `statement`'s figures, in line order."""
    findings: list[Finding] = []
    labels = LINES_BY_KEY[statement.kind]
    for period in statement.periods:
        values = period.values
        for line in LINES[statement.kind]:
            value = values.get(line.key)
            if value is None:
                continue
            if (line.sign == "positive" and value < 0) or (line.sign == "negative" and value > 0):
                expected = "negative, in brackets" if line.sign == "negative" else "positive"
                findings.append(
                    _suspect(
                        locate,
                        line.key,
                        period.label,
                        f"{line.label} reads {value}; it is {expected} "
                        "on every statement (a sign lost in extraction?)",
                    )
                )
            if not line.total_of:
                continue
            parts = [(values.get(key), coefficient) for key, coefficient in line.total_of]
            if any(part is None for part, _ in parts):
                continue
            expected_total = sum(coefficient * part for part, coefficient in parts if part is not None)
            if expected_total == value:
                continue
            names = ", ".join(labels[key].label for key, _ in line.total_of)
            message = f"{line.label} reads {value} but {names} add up to {expected_total}"
            for key in (line.key, *(key for key, _ in line.total_of)):
                findings.append(_suspect(locate, key, period.label, message))
    return _spread(statement, findings, locate)


def _spread(statement: Statement, findings: list[Finding], locate: Locate) -> list[Finding]:
    """A suspect figure makes every total it enters suspect, and every figure of those totals:
    a total that adds up over a wrong figure proves nothing."""
    suspect = {(f.line, f.period) for f in findings}
    totals = [line for line in LINES[statement.kind] if line.total_of]
    changed = True
    while changed:
        changed = False
        for period in statement.periods:
            for line in totals:
                members = [line.key, *(key for key, _ in line.total_of)]
                if any((key, period.label) in suspect for key in members):
                    for key in members:
                        if (key, period.label) not in suspect and period.values.get(key) is not None:
                            suspect.add((key, period.label))
                            message = f"part of a total with a suspect figure ({LINES_BY_KEY[statement.kind][line.key].label})"
                            findings.append(_suspect(locate, key, period.label, message))
                            changed = True
    return findings


def _suspect(locate: Locate, line: str, period: str, message: str) -> Finding:
    return Finding(kind="suspect", location=locate(line, period), line=line, period=period, message=message)
