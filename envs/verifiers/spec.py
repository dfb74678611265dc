"""Outcome specs: named assertions over a domain's outcome facts, each explained in words.

An assertion selects the records of one collection that match its `where` filter, then checks
their count and, optionally, the sum of one numeric field within a tolerance. An `OutcomeSpec`
holds when every `must` assertion holds and, if it lists resolutions, at least one resolution
holds entirely. The facts come from the domain (`Domain.outcome_facts`), so a spec never names
record ids that depend on call order, and two correct resolutions can both meet it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from envs.verifiers.outcome import get_path
from envs.verifiers.process import value_matches
from schemas.tasks import Assertion, OutcomeSpec, Resolution
from schemas.verdicts import CheckResult

Facts = Mapping[str, Sequence[Mapping[str, Any]]]
"""Collection name → records (flat JSON objects) describing a final world."""


def selected(assertion: Assertion, facts: Facts) -> list[Mapping[str, Any]]:
    """The records of the assertion's collection that match every `where` entry."""
    return [
        record
        for record in facts.get(assertion.collection, ())
        if all(
            value_matches(get_path(record, path.split(".")), want) for path, want in assertion.where.items()
        )
    ]


def failure(assertion: Assertion, facts: Facts) -> str | None:
    """Why the assertion does not hold, or None when it does."""
    if assertion.collection not in facts:
        return f"no collection {assertion.collection!r} in the outcome facts"
    records = selected(assertion, facts)
    n = len(records)
    if n < assertion.min_count or (assertion.max_count is not None and n > assertion.max_count):
        return f"{_count_wanted(assertion)} {_what(assertion)}, found {n}"
    if assertion.total_of is not None and assertion.total is not None:
        got = sum(_amount(r.get(assertion.total_of)) for r in records)
        if abs(got - assertion.total) > assertion.tolerance + 1e-9:
            return (
                f"{assertion.total_of} of {_what(assertion)} sums to {got:.2f}, "
                f"wanted {assertion.total:.2f}"
                + (f" (±{assertion.tolerance:.2f})" if assertion.tolerance >= 0.01 else "")
            )
    return None


def assertion_check(assertion: Assertion, facts: Facts) -> CheckResult:
    """`outcome.<name>`: passed, or failed with what was found."""
    why = failure(assertion, facts)
    return CheckResult(
        name=f"outcome.{assertion.name}",
        kind="outcome",
        passed=why is None,
        explanation=f"{assertion.reason}: " + ("holds" if why is None else why),
    )


def resolution_check(resolutions: Sequence[Resolution], facts: Facts) -> CheckResult:
    """`outcome.resolution`: which acceptable resolution the world shows, or why none holds."""
    reasons: list[str] = []
    for resolution in resolutions:
        broken = [(a, why) for a in resolution.assertions if (why := failure(a, facts)) is not None]
        if not broken:
            return CheckResult(
                name="outcome.resolution",
                kind="outcome",
                passed=True,
                explanation=f"resolved as {resolution.name}: {resolution.reason}",
            )
        first, why = broken[0]
        reasons.append(f"{resolution.name}: {first.reason} ({why})")
    return CheckResult(
        name="outcome.resolution",
        kind="outcome",
        passed=False,
        explanation="no acceptable resolution holds; " + "; ".join(reasons),
    )


def spec_checks(spec: OutcomeSpec, facts: Facts) -> list[CheckResult]:
    """One check per `must` assertion, then one for the resolutions (when the spec has any)."""
    checks = [assertion_check(a, facts) for a in spec.must]
    if spec.resolutions:
        checks.append(resolution_check(spec.resolutions, facts))
    return checks


def _amount(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _count_wanted(assertion: Assertion) -> str:
    low, high = assertion.min_count, assertion.max_count
    if high is None:
        return f"wanted at least {low}"
    if low == high:
        return f"wanted exactly {low}" if low else "wanted no"
    return f"wanted {low} to {high}"


def _what(assertion: Assertion) -> str:
    where = ", ".join(f"{k}={v!r}" for k, v in assertion.where.items())
    return f"{assertion.collection}" + (f" where {where}" if where else "")
