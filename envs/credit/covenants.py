"""Covenants at closing: which are tested, which floor each is judged against, the facility amount
that restructures a package whose covenant would already be breached, and equity cure rights (how
many cures a covenant allows against the policy's limit, and the cash a cure would need).

A springing covenant is tested only while the revolver is drawn past its trigger. Each tested
covenant's headroom is judged against its own floor (`policy.min_headroom_by_metric`, else
`policy.min_headroom_pct`). A breach at closing is declined or restructured: the restructure is
the largest facility amount (whole units) that leaves every tested covenant at its floor or above,
when a smaller amount can do that at all. A cure right never rescues a breach at closing: the
cure is sponsor cash, not earnings, so the facility is still declined or restructured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from adapters.credit.models import Covenant, Facility, FundPolicy
from envs.credit.cures import leverage_cure
from envs.credit.ratios import Exact, Inputs, exact, q


def tested(covenant: Covenant, facility: Facility) -> bool:
    """Whether the covenant is tested at closing."""
    trigger = covenant.springing_utilisation_pct
    if trigger is None:
        return True
    if facility.revolver_commitment <= 0:
        return False
    return q(facility.revolver_drawn) / q(facility.revolver_commitment) * 100 > q(trigger)


def floor(policy: FundPolicy, covenant: Covenant) -> Fraction:
    """The least headroom, in percent, this covenant needs."""
    return q(policy.min_headroom_by_metric.get(covenant.metric, policy.min_headroom_pct))


def tested_headroom(e: Exact, facility: Facility) -> list[tuple[Covenant, Fraction]]:
    """Each covenant tested at closing with its exact headroom."""
    return [(c, h) for c, h in e.headroom if tested(c, facility)]


def breached(e: Exact, facility: Facility) -> list[Covenant]:
    """The covenants that would fail their first test at closing."""
    return [c for c, h in tested_headroom(e, facility) if h < 0]


def thin(e: Exact, facility: Facility, policy: FundPolicy) -> list[Covenant]:
    """The covenants tested at closing whose headroom is under their floor."""
    return [c for c, h in tested_headroom(e, facility) if h < floor(policy, c)]


def cures_beyond_policy(covenants: Sequence[Covenant], policy: FundPolicy) -> list[Covenant]:
    """The covenants whose equity-cure right exceeds the policy's limit over the facility's life."""
    return [c for c in covenants if c.equity_cures > policy.max_equity_cures]


def cure_amount(e: Exact, covenant: Covenant) -> Fraction:
    """The sponsor cash needed to cure the covenant at closing (0 when it passes): counted as
    EBITDA for the test as cure provisions count it (leverage and cover tests), as cash for a
    liquidity test. What the cure needs is never earnings for underwriting."""
    level = q(covenant.level)
    free = e.adjusted_ebitda - e.capex_and_taxes
    needed = {
        "max_total_leverage": leverage_cure(e.total_debt, e.adjusted_ebitda, level),
        "max_senior_leverage": leverage_cure(e.senior_debt, e.adjusted_ebitda, level),
        "min_interest_coverage": level * e.interest - e.adjusted_ebitda,
        "min_fccr": level * e.debt_service - free,
        "min_liquidity": level - e.liquidity,
    }[covenant.metric]
    return max(needed, Fraction(0))


def restructured_amount(inputs: Inputs) -> float | None:
    """The largest amount that leaves every tested covenant at its floor, or None when no smaller
    amount does (a liquidity covenant, earnings too low)."""
    facility = inputs.term_sheet.facility

    def fits(amount: int) -> bool:
        terms = inputs.term_sheet.model_copy(
            update={"facility": facility.model_copy(update={"amount": float(amount)})}
        )
        e = exact(replace(inputs, term_sheet=terms))
        return not thin(e, terms.facility, inputs.policy)

    low, high = 1, int(facility.amount)
    if not fits(low):
        return None
    while low < high:  # the largest amount that fits: leverage rises and cover falls with it
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return float(low)
