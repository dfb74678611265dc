"""The underwriting computations of credit.md and the fund policy's decision classes."""

from __future__ import annotations

import pytest

from adapters.credit.models import AddBack, Covenant, FundPolicy
from envs.credit.assess import assess
from envs.credit.expert import load_expert_cases
from envs.credit.expert.build import LEGAL, Hand, M, package
from envs.credit.facts import FIGURES
from envs.credit.ratios import IncompleteTtm, accepted_addbacks, headroom, ttm_quarters
from envs.credit.worldgen import TODAY


@pytest.mark.parametrize("case", load_expert_cases(), ids=lambda c: c.id)
def test_the_computed_figures_and_classes_match_the_hand_worked_expert_case(case: object) -> None:
    found = assess(case.package, case.policy, case.today)  # type: ignore[attr-defined]
    right = case.right  # type: ignore[attr-defined]
    assert (found.classes, found.conditions, found.escalation_reasons, found.ask_first, found.may_ask) == (
        right.classes, right.conditions, right.escalation_reasons, right.ask_first, right.may_ask,
    )  # fmt: skip
    if right.figures is None:
        assert found.figures is None
        return
    assert found.figures is not None
    for name in FIGURES:
        want, got = getattr(right.figures, name), getattr(found.figures, name)
        assert abs(got - want) <= max(abs(want) * 0.005, 0.011), name
    hand = {h.metric: h.headroom_pct for h in right.figures.covenant_headroom}
    assert {
        h.metric: pytest.approx(h.headroom_pct, abs=0.15) for h in found.figures.covenant_headroom
    } == hand


def test_projected_synergies_are_capped_and_unsupported_or_recurring_addbacks_rejected() -> None:
    synergy = AddBack(
        addback_id="S", description="synergies", category="projected_synergy", amount=5 * M, supported=True
    )
    unsupported = AddBack(
        addback_id="U", description="owner pay", category="owner_compensation", amount=2 * M, supported=False
    )
    recurring = AddBack(
        addback_id="R",
        description="fees",
        category="non_recurring",
        amount=1 * M,
        supported=True,
        recurring=True,
    )
    bridge = package(Hand(addbacks=(LEGAL, synergy, unsupported, recurring)), "PKG-R").bridge
    assert accepted_addbacks(bridge, FundPolicy(addback_cap_pct=20.0)) == pytest.approx(1 * M + 2 * M)
    assert accepted_addbacks(bridge, FundPolicy(addback_cap_pct=60.0)) == pytest.approx(1 * M + 5 * M)


def test_a_gap_in_the_quarters_is_an_incomplete_ttm() -> None:
    with pytest.raises(IncompleteTtm):
        ttm_quarters(package(Hand(drop_quarter=1), "PKG-R").periods)
    assert [q.label for q in ttm_quarters(package(Hand(), "PKG-R").periods)] == [
        "2024Q2",
        "2024Q3",
        "2024Q4",
        "2025Q1",
    ]


def test_headroom_is_the_distance_from_the_level_in_percent_for_caps_and_floors() -> None:
    assert headroom(Covenant(metric="max_total_leverage", level=5.0), 4.0) == pytest.approx(20.0)
    assert headroom(Covenant(metric="min_interest_coverage", level=2.0), 2.5) == pytest.approx(25.0)
    assert headroom(Covenant(metric="max_total_leverage", level=5.0), 6.0) == pytest.approx(-20.0)


def test_a_stricter_policy_moves_the_same_package_to_the_committee() -> None:
    p = package(Hand(), "PKG-R")
    assert assess(p, FundPolicy(), TODAY).classes == ("approve",)
    assert assess(p, FundPolicy(min_headroom_pct=22.0), TODAY).classes == ("escalate",)
    assert assess(p, FundPolicy(escalate_total_leverage=3.5), TODAY).escalation_reasons == (
        "leverage_above_policy",
    )
