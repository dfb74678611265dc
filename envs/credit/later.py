"""Later outcomes of a generated package: its closing numbers and a seeded path of quarters.

`closing` takes the numbers covenants are tested on from the package (the figures of `ratios`);
`draw_path` draws EBITDA factors for the quarters after closing (steady, a slow decline, or a
shock), so the same seed always gives the same certificates, breaches, amendments and defaults
(`adapters.credit.outcomes.later_outcomes`).
"""

from __future__ import annotations

import random

from adapters.credit.models import CreditPackage, FundPolicy
from adapters.credit.outcomes import Closing
from envs.credit.assess import inputs_of
from envs.credit.ratios import SENIOR, figures

SHAPES = ("steady", "decline", "shock")


def closing(package: CreditPackage, policy: FundPolicy) -> Closing:
    """The facility's numbers at closing, in its currency."""
    inputs = inputs_of(package, policy)
    f = figures(inputs)
    facility = package.term_sheet.facility
    kept = [d for d in package.existing_debt if not d.refinanced]
    drawn = facility.amount + facility.revolver_drawn
    senior = drawn + sum(d.outstanding * inputs.fx(d.currency) for d in kept if d.seniority in SENIOR)
    total = drawn + sum(d.outstanding * inputs.fx(d.currency) for d in kept)
    interest = f.adjusted_ebitda / f.interest_coverage if f.interest_coverage else 0.0
    return Closing(
        adjusted_ebitda=f.adjusted_ebitda,
        total_debt=total,
        senior_debt=senior,
        cash_interest=interest,
        annual_amortisation=facility.amount * facility.amortisation_pct / 100,
        liquidity=f.liquidity,
        covenants=package.term_sheet.covenants,
    )


def draw_path(rng: random.Random, quarters: int = 8) -> list[float]:
    """EBITDA factors for `quarters` quarters after closing."""
    shape = rng.choice(SHAPES)
    factor, path = 1.0, []
    shock_at = rng.randint(1, max(1, quarters - 2))
    for q in range(quarters):
        if shape == "steady":
            factor *= rng.uniform(0.99, 1.03)
        elif shape == "decline":
            factor *= rng.uniform(0.93, 0.99)
        elif q == shock_at:
            factor *= rng.uniform(0.6, 0.75)
        path.append(round(factor, 3))
    return path
