"""The underwriting computations of credit.md, as pure functions over what the package holds.

Every ratio is on the trailing twelve months (the latest four consecutive quarters) and pro forma
for the facility, in the facility's currency:
- adjusted EBITDA = reported TTM EBITDA + accepted add-backs (supported, non-recurring; projected
  synergies only up to the policy's cap as a percentage of reported EBITDA);
- total (senior) leverage = debt after closing (senior debt after closing) / adjusted EBITDA;
- interest coverage = adjusted EBITDA / pro forma cash interest;
- FCCR = (adjusted EBITDA - capex - cash taxes) / (cash interest + scheduled principal);
- DSCR = (adjusted EBITDA - capex - cash taxes - working-capital increase) / the same debt service;
- liquidity = cash at the latest quarter end + undrawn revolver;
- headroom = (level - actual) / level for a maximum, (actual - level) / level for a minimum, in %.
A leverage on non-positive EBITDA is not meaningful and is stated as `NOT_MEANINGFUL`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from adapters.credit.models import (
    AddBack,
    Covenant,
    EbitdaBridge,
    ExistingDebt,
    FinancialPeriod,
    FundPolicy,
    TermSheet,
)
from adapters.credit.records import CovenantHeadroom, Figures

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

    def fx(self, currency: str) -> float:
        """Rate into the facility currency."""
        if currency == self.term_sheet.facility.currency:
            return 1.0
        return self.fx_to_facility[currency]


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


def accepted(addback: AddBack) -> bool:
    """An add-back is acceptable when evidence supports it and the cost does not recur."""
    return addback.supported and not addback.recurring and addback.category != "recurring_cost"


def accepted_addbacks(bridge: EbitdaBridge, policy: FundPolicy) -> float:
    """Accepted add-backs in the bridge's currency; projected synergies capped."""
    plain = sum(a.amount for a in bridge.addbacks if accepted(a) and a.category != "projected_synergy")
    synergies = sum(a.amount for a in bridge.addbacks if accepted(a) and a.category == "projected_synergy")
    cap = max(bridge.reported_ebitda, 0.0) * policy.addback_cap_pct / 100
    return plain + min(synergies, cap)


def headroom(covenant: Covenant, actual: float) -> float:
    """Headroom in percent of the covenant level (negative: in breach)."""
    if covenant.metric.startswith("max_"):
        return (covenant.level - actual) / covenant.level * 100
    return (actual - covenant.level) / covenant.level * 100


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else NOT_MEANINGFUL


def figures(inputs: Inputs) -> Figures:
    """Every figure a recommendation relies on, rounded as a memo states them."""
    quarters = ttm_quarters(inputs.periods)
    reported = sum(q.income.ebitda * inputs.fx(q.currency) for q in quarters)
    addbacks = accepted_addbacks(inputs.bridge, inputs.policy) * inputs.fx(inputs.bridge.currency)
    ebitda = reported + addbacks
    facility = inputs.term_sheet.facility
    kept = [d for d in inputs.debts if not d.refinanced]
    drawn = facility.amount + facility.revolver_drawn
    total_debt = drawn + sum(d.outstanding * inputs.fx(d.currency) for d in kept)
    senior_debt = drawn + sum(d.outstanding * inputs.fx(d.currency) for d in kept if d.seniority in SENIOR)
    interest = drawn * facility.all_in_rate_pct / 100 + sum(
        d.outstanding * inputs.fx(d.currency) * d.rate_pct / 100 for d in kept
    )
    principal = facility.amount * facility.amortisation_pct / 100 + sum(
        d.annual_principal * inputs.fx(d.currency) for d in kept
    )
    capex = sum(q.cash_flow.capex * inputs.fx(q.currency) for q in quarters)
    taxes = sum(q.cash_flow.cash_taxes * inputs.fx(q.currency) for q in quarters)
    wc = sum(q.cash_flow.change_in_working_capital * inputs.fx(q.currency) for q in quarters)
    latest = quarters[-1]
    liquidity = (
        latest.balance.cash * inputs.fx(latest.currency)
        + facility.revolver_commitment
        - facility.revolver_drawn
    )
    service = interest + principal
    total_leverage = total_debt / ebitda if ebitda > 0 else NOT_MEANINGFUL
    senior_leverage = senior_debt / ebitda if ebitda > 0 else NOT_MEANINGFUL
    coverage = _ratio(ebitda, interest)
    fccr = _ratio(ebitda - capex - taxes, service)
    dscr = _ratio(ebitda - capex - taxes - wc, service)
    actual = {
        "max_total_leverage": total_leverage,
        "max_senior_leverage": senior_leverage,
        "min_interest_coverage": coverage,
        "min_fccr": fccr,
        "min_liquidity": liquidity,
    }
    return Figures(
        adjusted_ebitda=round(ebitda, 0),
        total_leverage=round(total_leverage, 2),
        senior_leverage=round(senior_leverage, 2),
        interest_coverage=round(coverage, 2),
        fixed_charge_coverage=round(fccr, 2),
        dscr=round(dscr, 2),
        liquidity=round(liquidity, 0),
        covenant_headroom=tuple(
            CovenantHeadroom(metric=c.metric, headroom_pct=round(headroom(c, actual[c.metric]), 1))
            for c in inputs.term_sheet.covenants
        ),
    )


def max_amount_for(inputs: Inputs, leverage: float) -> float:
    """The largest facility amount that keeps total leverage at `leverage` (0 when none does)."""
    f = figures(inputs)
    if f.adjusted_ebitda <= 0:
        return 0.0
    other_debt = f.total_leverage * f.adjusted_ebitda - inputs.term_sheet.facility.amount
    return max(0.0, leverage * f.adjusted_ebitda - other_debt)


def restated_recently(periods: Sequence[FinancialPeriod], today: date, years: int) -> bool:
    """Whether any period was restated within the look-back."""
    since = today - timedelta(days=365 * years)
    return any(p.restated and (p.restated_on is None or p.restated_on >= since) for p in periods)
