"""Outcomes that arrive after the decision, as `outcome.observed` payloads: a covenant compliance
certificate each quarter, a covenant breach, an amendment that resets a covenant, a default.

`later_outcomes` plays a facility's quarters forward from its closing numbers along a path of EBITDA
(a factor on closing EBITDA per quarter): debt amortises, each covenant is tested, the first breach
is cured by an amendment that resets the level with 15% headroom for a fee, and a breach after an
amendment is a default that ends the story. `held_up` says whether a recommendation held up.
Pure: no clock, no randomness; dates come from the first test date.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal

from adapters.credit.models import Covenant, CovenantMetric
from adapters.credit.records import DecisionClass
from schemas.base import Contract
from schemas.events import OutcomeObserved

OutcomeKind = Literal["compliance_certificate", "covenant_breach", "amendment", "default"]
CERTIFICATE_LAG = timedelta(days=45)
"""Days after a quarter end that its compliance certificate arrives."""
RESET_HEADROOM = 0.15
AMENDMENT_FEE_BPS = 50


class CovenantTest(Contract):
    """One covenant tested at one quarter end."""

    metric: CovenantMetric
    """The covenant."""
    level: float
    """Its level at the test."""
    actual: float
    """The tested ratio (or amount, for liquidity)."""
    passed: bool
    """Whether the borrower complied."""


class ComplianceCertificate(Contract):
    """The quarterly certificate the borrower delivers."""

    quarter_end: date
    """The tested quarter's last day."""
    tests: tuple[CovenantTest, ...]
    """Each covenant's test."""
    compliant: bool
    """Every test passed."""


class CovenantBreach(Contract):
    """A covenant the borrower failed."""

    quarter_end: date
    """The tested quarter's last day."""
    test: CovenantTest
    """The failed test."""


class Amendment(Contract):
    """A covenant reset agreed after a breach."""

    quarter_end: date
    """The quarter whose breach it cures."""
    metric: CovenantMetric
    """The covenant reset."""
    old_level: float
    """Level before."""
    new_level: float
    """Level after."""
    fee_bps: int
    """Amendment fee, basis points of the facility."""


class Default(Contract):
    """The facility defaulted."""

    quarter_end: date
    """The quarter of the default."""
    reason: str
    """Why, in words."""


DETAILS: dict[str, type[Contract]] = {
    "compliance_certificate": ComplianceCertificate,
    "covenant_breach": CovenantBreach,
    "amendment": Amendment,
    "default": Default,
}
"""The details model of each outcome kind (for `record_outcome(details_model=...)`)."""


@dataclass(frozen=True)
class Closing:
    """A facility's numbers at closing, in its currency, and its covenants."""

    adjusted_ebitda: float
    total_debt: float
    senior_debt: float
    cash_interest: float
    annual_amortisation: float
    liquidity: float
    covenants: tuple[Covenant, ...]


def quarter_end(first: date, n: int) -> date:
    """The last day of the quarter `n` quarters after the one ending on `first`."""
    index = first.year * 12 + first.month - 1 + 3 * n
    year, month = index // 12, index % 12 + 1
    return date(year, month, calendar.monthrange(year, month)[1])


def tested(c: Closing, metric: CovenantMetric, factor: float, quarters: int) -> float:
    """The tested value of `metric` after `quarters` quarters at `factor` x closing EBITDA."""
    repaid = c.annual_amortisation / 4 * quarters
    ebitda = c.adjusted_ebitda * factor
    debt, senior = c.total_debt - repaid, c.senior_debt - repaid
    interest = c.cash_interest * debt / c.total_debt if c.total_debt else 0.0
    service = interest + c.annual_amortisation
    values = {
        "max_total_leverage": debt / ebitda if ebitda > 0 else 99.0,
        "max_senior_leverage": senior / ebitda if ebitda > 0 else 99.0,
        "min_interest_coverage": ebitda / interest if interest > 0 else 99.0,
        "min_fccr": ebitda * 0.8 / service if service > 0 else 99.0,
        "min_liquidity": c.liquidity * min(factor, 1.0),
    }
    return round(values[metric], 2)


def _passes(metric: str, level: float, actual: float) -> bool:
    return actual <= level if metric.startswith("max_") else actual >= level


def _event(
    kind: OutcomeKind, item_id: str, at: date, details: Contract, ref: str, codes: tuple[str, ...] = ()
) -> OutcomeObserved:
    observed = datetime.combine(at, time(9, 0), tzinfo=UTC)
    return OutcomeObserved(
        kind=kind,
        item_id=item_id,
        observed_at=observed,
        reason_codes=codes,
        external_ref=ref,
        details=details.model_dump(mode="json"),
    )


def later_outcomes(
    item_id: str, closing: Closing, path: Sequence[float], first_test: date
) -> list[OutcomeObserved]:
    """The outcome events of the quarters along `path`, oldest first."""
    levels = {c.metric: c.level for c in closing.covenants}
    amended = False
    out: list[OutcomeObserved] = []
    for n, factor in enumerate(path):
        end = quarter_end(first_test, n)
        seen = end + CERTIFICATE_LAG
        tests = tuple(
            CovenantTest(
                metric=m,
                level=lvl,
                actual=(a := tested(closing, m, factor, n + 1)),
                passed=_passes(m, lvl, a),
            )
            for m, lvl in levels.items()
        )
        compliant = all(t.passed for t in tests)
        out.append(
            _event(
                "compliance_certificate",
                item_id,
                seen,
                ComplianceCertificate(quarter_end=end, tests=tests, compliant=compliant),
                f"{item_id}-CC-{n + 1}",
            )
        )
        failed = [t for t in tests if not t.passed]
        for t in failed:
            out.append(
                _event(
                    "covenant_breach",
                    item_id,
                    seen,
                    CovenantBreach(quarter_end=end, test=t),
                    f"{item_id}-BR-{n + 1}",
                    (t.metric,),
                )
            )
        if failed and amended:
            reason = f"breached {', '.join(t.metric for t in failed)} after an amendment"
            out.append(
                _event(
                    "default", item_id, seen, Default(quarter_end=end, reason=reason), f"{item_id}-DF-{n + 1}"
                )
            )
            return out
        for t in failed:
            cushion = 1 + RESET_HEADROOM if t.metric.startswith("max_") else 1 - RESET_HEADROOM
            new = round(t.actual * cushion, 2)
            out.append(
                _event(
                    "amendment",
                    item_id,
                    seen + timedelta(days=14),
                    Amendment(
                        quarter_end=end,
                        metric=t.metric,
                        old_level=t.level,
                        new_level=new,
                        fee_bps=AMENDMENT_FEE_BPS,
                    ),
                    f"{item_id}-AM-{n + 1}",
                )
            )
            levels[t.metric] = new
            amended = True
    return out


def held_up(decision: DecisionClass, outcomes: Sequence[OutcomeObserved]) -> bool | None:
    """Whether a lending recommendation held up: no breach and no default. None for a decision
    whose counterfactual is never observed (decline, request information, escalate)."""
    if decision not in ("approve", "approve_with_conditions"):
        return None
    return not any(o.kind in ("covenant_breach", "default") for o in outcomes)
