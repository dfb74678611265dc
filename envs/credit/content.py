"""Content checks: what the analyst writes must carry the work.

- a credit memo (recommendation or escalation) cites the figures it relied on, each within 80
  characters after what it is (so a memo stuffed with numbers cites nothing): the adjusted EBITDA
  after "EBITDA" (within 1% of the recorded one, written `12,345,000`, `12.3m` or `12.3 million`),
  the total leverage after "leverage" and the interest coverage after "coverage" (`4.35x` or
  `4.3x`), and the headroom of every covenant on the term sheet after the covenant's name (a
  percentage within a point of the recorded headroom), or says the terms are covenant-lite when
  there is none;
- the memo is evidence (`memo_check`): every ratio it cites equals the computation to the
  decimals written, it states no fact the package does not hold, an escalation memo names each
  reason and a memo asking for more equity cites the FCCR;
- an information request names, in words, each item it asks for.
A check fails on the first call that breaks it and names that call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from adapters.credit.tools import ESCALATE, RECORD, REQUEST
from envs.contract import Trajectory, Turn
from envs.credit.memo_check import evidence_problem
from envs.verifiers.rubrics import Rubric, rubric_checks
from schemas.tasks import Task
from schemas.verdicts import CheckResult

_AMOUNT = re.compile(
    r"(-?\d{1,3}(?:,\d{3})+|-?\d+(?:\.\d+)?)\s*(bn|billion|mm|m|million|k|thousand)?\b", re.IGNORECASE
)
_MULTIPLE = re.compile(r"(-?\d+(?:\.\d+)?)\s*x\b", re.IGNORECASE)
_PERCENT = re.compile(r"(-?\d+(?:\.\d+)?)\s*%")
_SCALE = {"bn": 1e9, "billion": 1e9, "mm": 1e6, "m": 1e6, "million": 1e6, "k": 1e3, "thousand": 1e3}
WINDOW = 80
"""How far after its label a figure may be written."""
LABELS: dict[str, re.Pattern[str]] = {
    "adjusted_ebitda": re.compile(r"EBITDA", re.IGNORECASE),
    "total_leverage": re.compile(r"leverage", re.IGNORECASE),
    "interest_coverage": re.compile(r"interest|cover|ICR", re.IGNORECASE),
}
HEADROOM_LABELS: dict[str, re.Pattern[str]] = {
    "max_total_leverage": re.compile(r"leverage", re.IGNORECASE),
    "max_senior_leverage": re.compile(r"senior", re.IGNORECASE),
    "min_interest_coverage": re.compile(r"interest|cover|ICR", re.IGNORECASE),
    "min_fccr": re.compile(r"fixed[- ]charge|FCCR", re.IGNORECASE),
    "min_liquidity": re.compile(r"liquidity", re.IGNORECASE),
}
_LITE = re.compile(r"covenant[- ]lite|no maintenance covenant", re.IGNORECASE)
ITEM_PATTERNS: dict[str, re.Pattern[str]] = {
    "restatement_reconciliation": re.compile(r"restat", re.IGNORECASE),
    "missing_quarter": re.compile(r"quarter", re.IGNORECASE),
    "addback_support": re.compile(r"add-?backs?", re.IGNORECASE),
    "customer_contracts": re.compile(r"customer", re.IGNORECASE),
    "fiscal_year_bridge": re.compile(r"fiscal year", re.IGNORECASE),
    "sources_and_uses": re.compile(r"sources and uses|sources & uses", re.IGNORECASE),
    "latest_quarter": re.compile(r"quarter", re.IGNORECASE),
    "quality_of_earnings": re.compile(r"quality[- ]of[- ]earnings|\bQoE\b", re.IGNORECASE),
    "compliance_certificates": re.compile(r"compliance certificate", re.IGNORECASE),
    "breach_history": re.compile(r"breach", re.IGNORECASE),
}


def amounts(text: str) -> list[float]:
    """Every amount written in `text`, scaled by its suffix."""
    out = []
    for number, suffix in _AMOUNT.findall(text):
        value = float(number.replace(",", ""))
        out.append(value * _SCALE.get(suffix.lower(), 1.0) if suffix else value)
    return out


def _near(values: Iterable[float], want: float, tolerance: float) -> bool:
    return any(abs(v - want) <= tolerance for v in values)


def near_label(
    text: str, label: re.Pattern[str], number: re.Pattern[str], window: int = WINDOW
) -> list[float]:
    """Numbers written within `window` characters after a mention of `label`."""
    out: list[float] = []
    for found in label.finditer(text):
        chunk = text[found.end() : found.end() + window]
        if number is _AMOUNT:
            out += amounts(chunk)
        else:
            out += [float(m) for m in number.findall(chunk)]
    return out


def memo_problem(world: Mapping[str, Any], turn: Turn) -> str | None:
    """Why a memo does not cite what it relied on, next to what it is, or None."""
    args = turn.call.arguments
    text = str(args.get("memo", ""))
    figures = args.get("figures") or {}
    package = world.get("packages", {}).get(str(args.get("package_id", "")), {})
    ebitda = figures.get("adjusted_ebitda")
    if isinstance(ebitda, int | float) and not _near(
        near_label(text, LABELS["adjusted_ebitda"], _AMOUNT),
        float(ebitda),
        max(abs(float(ebitda)) * 0.01, 1000),
    ):
        return "the memo does not state the adjusted EBITDA it relied on"
    for name in ("total_leverage", "interest_coverage"):
        value = figures.get(name)
        if isinstance(value, int | float) and not _near(
            near_label(text, LABELS[name], _MULTIPLE), float(value), 0.051
        ):
            return f"the memo does not state the {name.replace('_', ' ')} ({value}x) it relied on"
    covenants = package.get("term_sheet", {}).get("covenants", [])
    if not covenants:
        if not _LITE.search(text):
            return "the terms have no covenant and the memo does not say so"
        return evidence_problem(world, args)
    recorded = {h.get("metric"): h.get("headroom_pct") for h in figures.get("covenant_headroom", [])}
    for covenant in covenants:
        metric = covenant["metric"]
        value = recorded.get(metric)
        cited = near_label(text, HEADROOM_LABELS[metric], _PERCENT)
        if not isinstance(value, int | float) or not _near(cited, float(value), 0.6):
            return f"the memo does not state the headroom on the {metric.replace('_', ' ')} covenant"
    return evidence_problem(world, args)


def request_problem(world: Mapping[str, Any], turn: Turn) -> str | None:
    """Why a request does not say what it asks for, or None."""
    text = str(turn.call.arguments.get("message", ""))
    for item in turn.call.arguments.get("items", []):
        pattern = ITEM_PATTERNS.get(str(item))
        if pattern is not None and not pattern.search(text):
            return f"the request does not say in words that it asks for the {str(item).replace('_', ' ')}"
    return None


def content_checks(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """One check per kind of writing in the trajectory (none when the analyst wrote nothing)."""
    return rubric_checks("credit", RUBRICS, task, trajectory)


RUBRICS = (
    Rubric((RECORD, ESCALATE), "memo", memo_problem, "the memo carries the work"),
    Rubric((REQUEST,), "request", request_problem, "the request carries the work"),
)
