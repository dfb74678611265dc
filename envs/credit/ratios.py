"""The underwriting computations of credit.md, as pure functions over what the package holds.

Every ratio is on the trailing twelve months (the latest four consecutive quarters) and pro forma
for the facility, in the facility's currency:
- adjusted EBITDA = reported TTM EBITDA + accepted add-backs (judged by `addbacks.judge`: read by
  description and history; projected synergies only up to the policy's cap as a percentage of
  reported EBITDA) - the EBITDA of a largest customer that has given notice of non-renewal;
- total (senior) leverage = debt after closing (senior debt after closing) / adjusted EBITDA;
- interest coverage = adjusted EBITDA / pro forma cash interest;
- FCCR = (adjusted EBITDA - capex - cash taxes) / (cash interest + scheduled principal);
- DSCR = (adjusted EBITDA - capex - cash taxes - working-capital increase) / the same debt service;
- liquidity = cash at the latest quarter end + undrawn revolver;
- headroom = (level - actual) / level for a maximum, (actual - level) / level for a minimum, in %.
A leverage on non-positive EBITDA is not meaningful and is stated as `NOT_MEANINGFUL`.

Every figure is first computed exactly (`exact`: rationals over the decimals the package writes),
and policy compares those: 6.0045x is above a 6.0x level. `figures` rounds them as a memo states
them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from fractions import Fraction

from adapters.credit.models import (
    Covenant,
    CreditPackage,
    EbitdaBridge,
    ExistingDebt,
    FinancialPeriod,
    FundPolicy,
    SourcesAndUses,
    TermSheet,
)
from adapters.credit.records import CovenantHeadroom, Figures
from envs.credit.addbacks import judge
from envs.credit.calendar import month_end, shift
from envs.credit.diligence import lost_ebitda
from envs.credit.refinancing import remaining

NOT_MEANINGFUL = 99.0
"""Leverage stated when adjusted EBITDA is zero or negative."""
SENIOR = ("senior_secured", "senior_unsecured")


class IncompleteTtm(ValueError):
    """The latest four quarters do not cover twelve consecutive months."""


@dataclass(frozen=True)
class Inputs:
    """What the computations read, as the tools return it."""

    periods: Sequence[FinancialPeriod]
    bridge: EbitdaBridge
    term_sheet: TermSheet
    debts: Sequence[ExistingDebt]
    fx_to_facility: dict[str, float]
    policy: FundPolicy
    sources_and_uses: SourcesAndUses | None = None
    lost_ebitda: float = 0.0
    """EBITDA of a customer that has given notice, in the bridge's currency (taken off)."""

    def fx(self, currency: str) -> Fraction:
        """Rate into the facility currency, exactly as written."""
        if currency == self.term_sheet.facility.currency:
            return Fraction(1)
        return q(self.fx_to_facility[currency])


def q(value: float) -> Fraction:
    """A written figure as an exact rational (`0.1` is one tenth, not its binary neighbour)."""
    return Fraction(str(value))


def inputs_for(package: CreditPackage, policy: FundPolicy) -> Inputs:
    """The computation inputs of a package as it stands."""
    return Inputs(
        periods=package.periods,
        bridge=package.bridge,
        term_sheet=package.term_sheet,
        debts=package.existing_debt,
        fx_to_facility=dict(package.fx_to_facility),
        policy=policy,
        sources_and_uses=package.sources_and_uses,
        lost_ebitda=lost_ebitda(package.borrower),
    )


def ttm_quarters(periods: Sequence[FinancialPeriod]) -> list[FinancialPeriod]:
    """The latest four quarters, oldest first; `IncompleteTtm` when one is missing."""
    quarters = sorted((p for p in periods if p.kind == "Q"), key=lambda p: p.end)
    last4 = quarters[-4:]
    if len(last4) < 4:
        raise IncompleteTtm(f"only {len(last4)} quarters delivered")
    for earlier, later in itertools.pairwise(last4):
        if later.start != earlier.end + timedelta(days=1):
            raise IncompleteTtm(f"no quarter between {earlier.label} and {later.label}")
    return last4


def missing_quarter(periods: Sequence[FinancialPeriod]) -> bool:
    """Whether the TTM cannot be built from the quarters delivered."""
    try:
        ttm_quarters(periods)
    except IncompleteTtm:
        return True
    return False


def accepted_addbacks(bridge: EbitdaBridge, policy: FundPolicy) -> float:
    """Accepted add-backs in the bridge's currency; projected synergies capped."""
    return float(exact_addbacks(bridge, policy))


def exact_addbacks(bridge: EbitdaBridge, policy: FundPolicy) -> Fraction:
    """Accepted add-backs in the bridge's currency, exactly (each judged by `addbacks.judge`);
    projected synergies capped."""
    verdicts = [(a, judge(a, policy).accepted) for a in bridge.addbacks]
    plain = sum((v for a, v in verdicts if a.category != "projected_synergy"), Fraction(0))
    synergies = sum((v for a, v in verdicts if a.category == "projected_synergy"), Fraction(0))
    cap = max(q(bridge.reported_ebitda), Fraction(0)) * q(policy.addback_cap_pct) / 100
    return plain + min(synergies, cap)


def headroom(covenant: Covenant, actual: float) -> float:
    """Headroom in percent of the covenant level (negative: in breach)."""
    return float(exact_headroom(covenant, q(actual)))


def exact_headroom(covenant: Covenant, actual: Fraction) -> Fraction:
    """Headroom in percent of the covenant level, exactly (negative: in breach)."""
    level = q(covenant.level)
    if covenant.metric.startswith("max_"):
        return (level - actual) / level * 100
    return (actual - level) / level * 100


def _ratio(numerator: Fraction, denominator: Fraction) -> Fraction:
    return numerator / denominator if denominator > 0 else Fraction(NOT_MEANINGFUL)


@dataclass(frozen=True)
class Exact:
    """Every figure unrounded, in the facility currency: what policy thresholds are compared with."""

    reported_ebitda: Fraction
    adjusted_ebitda: Fraction
    total_debt: Fraction
    senior_debt: Fraction
    facility_amount: Fraction
    interest: Fraction
    debt_service: Fraction
    capex_and_taxes: Fraction
    """TTM capex plus cash taxes (what FCCR takes off EBITDA)."""
    total_leverage: Fraction
    senior_leverage: Fraction
    interest_coverage: Fraction
    fixed_charge_coverage: Fraction
    dscr: Fraction
    liquidity: Fraction
    headroom: tuple[tuple[Covenant, Fraction], ...]
    """Each covenant on the term sheet with its exact headroom in percent."""

    def min_headroom(self) -> Fraction | None:
        """The thinnest headroom, or None when there is no covenant."""
        return min((h for _, h in self.headroom), default=None)


def exact(inputs: Inputs) -> Exact:
    """Every figure a recommendation relies on, exactly."""
    quarters = ttm_quarters(inputs.periods)

    def ttm(part: str, field: str) -> Fraction:
        return sum(
            (q(getattr(getattr(p, part), field)) * inputs.fx(p.currency) for p in quarters), Fraction(0)
        )

    reported = ttm("income", "ebitda")
    adjustments = exact_addbacks(inputs.bridge, inputs.policy) - q(inputs.lost_ebitda)
    ebitda = reported + adjustments * inputs.fx(inputs.bridge.currency)
    facility = inputs.term_sheet.facility
    # A refinanced debt is retired only as far as the sources and uses repay it.
    kept = [(d, share) for d, share in remaining(inputs.debts, inputs.sources_and_uses) if share > 0]
    drawn = q(facility.amount) + q(facility.revolver_drawn)

    def owed(d: ExistingDebt, share: Fraction) -> Fraction:
        return q(d.outstanding) * share * inputs.fx(d.currency)

    total_debt = drawn + sum((owed(d, s) for d, s in kept), Fraction(0))
    senior_debt = drawn + sum((owed(d, s) for d, s in kept if d.seniority in SENIOR), Fraction(0))
    interest = drawn * q(facility.all_in_rate_pct) / 100 + sum(
        (owed(d, s) * q(d.rate_pct) / 100 for d, s in kept), Fraction(0)
    )
    principal = q(facility.amount) * q(facility.amortisation_pct) / 100 + sum(
        (q(d.annual_principal) * s * inputs.fx(d.currency) for d, s in kept), Fraction(0)
    )
    capex, taxes = ttm("cash_flow", "capex"), ttm("cash_flow", "cash_taxes")
    wc = ttm("cash_flow", "change_in_working_capital")
    latest = quarters[-1]
    liquidity = (
        q(latest.balance.cash) * inputs.fx(latest.currency)
        + q(facility.revolver_commitment)
        - q(facility.revolver_drawn)
    )
    service = interest + principal
    meaningless = Fraction(NOT_MEANINGFUL)
    total_leverage = total_debt / ebitda if ebitda > 0 else meaningless
    senior_leverage = senior_debt / ebitda if ebitda > 0 else meaningless
    coverage = _ratio(ebitda, interest)
    fccr = _ratio(ebitda - capex - taxes, service)
    actual = {
        "max_total_leverage": total_leverage,
        "max_senior_leverage": senior_leverage,
        "min_interest_coverage": coverage,
        "min_fccr": fccr,
        "min_liquidity": liquidity,
    }
    return Exact(
        reported_ebitda=reported,
        adjusted_ebitda=ebitda,
        total_debt=total_debt,
        senior_debt=senior_debt,
        facility_amount=q(facility.amount),
        interest=interest,
        debt_service=service,
        capex_and_taxes=capex + taxes,
        total_leverage=total_leverage,
        senior_leverage=senior_leverage,
        interest_coverage=coverage,
        fixed_charge_coverage=fccr,
        dscr=_ratio(ebitda - capex - taxes - wc, service),
        liquidity=liquidity,
        headroom=tuple((c, exact_headroom(c, actual[c.metric])) for c in inputs.term_sheet.covenants),
    )


def rounded(e: Exact) -> Figures:
    """The exact figures rounded as a memo states them."""
    return Figures(
        adjusted_ebitda=round(float(e.adjusted_ebitda), 0),
        total_leverage=round(float(e.total_leverage), 2),
        senior_leverage=round(float(e.senior_leverage), 2),
        interest_coverage=round(float(e.interest_coverage), 2),
        fixed_charge_coverage=round(float(e.fixed_charge_coverage), 2),
        dscr=round(float(e.dscr), 2),
        liquidity=round(float(e.liquidity), 0),
        covenant_headroom=tuple(
            CovenantHeadroom(metric=c.metric, headroom_pct=round(float(h), 1)) for c, h in e.headroom
        ),
    )


def figures(inputs: Inputs) -> Figures:
    """Every figure a recommendation relies on, rounded as a memo states them."""
    return rounded(exact(inputs))


def max_amount_for(inputs: Inputs, leverage: float) -> float:
    """The largest facility amount (whole units, rounded down) that keeps total leverage at
    `leverage` on the exact figures (0 when none does)."""
    e = exact(inputs)
    if e.adjusted_ebitda <= 0:
        return 0.0
    other_debt = e.total_debt - e.facility_amount
    return float(max(0, math.floor(q(leverage) * e.adjusted_ebitda - other_debt)))


def stale_ttm(periods: Sequence[FinancialPeriod], today: date, lag_days: int) -> bool:
    """Whether the latest quarter ends so long before `today` that the next one's accounts are
    overdue (more than a quarter plus the reporting lag)."""
    quarters = [p for p in periods if p.kind == "Q"]
    if not quarters:
        return False
    latest = max(p.end for p in quarters)
    next_end = month_end(*shift(latest.year, latest.month, 3))
    return today > next_end + timedelta(days=lag_days)


def restated_recently(periods: Sequence[FinancialPeriod], today: date, years: int) -> bool:
    """Whether any period was restated within the look-back."""
    since = today - timedelta(days=365 * years)
    return any(p.restated and (p.restated_on is None or p.restated_on >= since) for p in periods)
