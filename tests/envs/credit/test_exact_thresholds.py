"""Policy thresholds are compared on exact figures, never on the rounded ones a memo shows."""

from __future__ import annotations

from fractions import Fraction

from adapters.credit.models import ExistingDebt, FundPolicy
from envs.credit.assess import assess
from envs.credit.expert.build import Hand, M, package
from envs.credit.ratios import exact, inputs_for
from envs.credit.worldgen import TODAY

WIDE = (("max_total_leverage", 8.0), ("min_interest_coverage", 1.2))


def test_a_leverage_of_6_0045x_is_above_a_6_0x_policy_level_though_it_rounds_to_6_00() -> None:
    # 11.0m adjusted EBITDA x 6.0045 = 66.0495m facility.
    p = package(Hand(facility=66_049_500.0, covenants=WIDE), "PKG-E1")
    found = assess(p, FundPolicy(), TODAY)
    assert found.figures is not None and found.figures.total_leverage == 6.0
    assert found.classes == ("escalate",)
    assert found.escalation_reasons == ("leverage_above_policy",)


def test_the_exact_leverage_is_a_ratio_of_the_written_figures() -> None:
    p = package(Hand(facility=66_049_500.0, covenants=WIDE), "PKG-E1")
    e = exact(inputs_for(p, FundPolicy()))
    assert e.total_leverage == Fraction("66049500") / Fraction("11000000")
    assert e.total_leverage > 6


def test_headroom_of_14_96_percent_is_under_a_15_percent_floor_though_it_rounds_to_15_0() -> None:
    # 46.772m / 11.0m = 4.252x against a 5.0x covenant: (5.0 - 4.252) / 5.0 = 14.96%.
    p = package(Hand(facility=46_772_000.0), "PKG-E2")
    found = assess(p, FundPolicy(), TODAY)
    assert found.figures is not None
    assert found.figures.covenant_headroom[0].headroom_pct == 15.0
    assert found.classes == ("escalate",)
    assert found.escalation_reasons == ("thin_covenant_headroom",)


def test_the_largest_amount_comes_from_the_exact_leverage_not_the_rounded_one() -> None:
    # Kept debt 1,234,567 beside a 60.5m facility: 5.0x x 11.0m - 1,234,567 = 53,765,433.
    kept = ExistingDebt(
        debt_id="D-1",
        lender="Bank",
        seniority="subordinated",
        outstanding=1_234_567.0,
        currency="USD",
        rate_pct=0.0,
        annual_principal=0.0,
    )
    p = package(
        Hand(
            facility=60.5 * M,
            debts=(kept,),
            covenants=(("max_total_leverage", 7.5), ("min_interest_coverage", 1.2)),
        ),
        "PKG-E3",
    )
    found = assess(p, FundPolicy(), TODAY)
    assert found.conditions[0] == "lower_amount"
    assert found.max_amount == 53_765_433.0
