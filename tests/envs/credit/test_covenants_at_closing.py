"""Covenants at closing: a breach on day one is declined or restructured, headroom is judged per
covenant, a springing covenant is tested only when it springs."""

from __future__ import annotations

from adapters.credit.models import Covenant, FundPolicy
from envs.credit.assess import assess
from envs.credit.expert.build import Hand, M, package
from envs.credit.worldgen import TODAY


def test_a_covenant_breached_at_closing_is_declined_or_restructured_never_sent_to_committee() -> None:
    # 48.4m / 11.0m = 4.40x against a 4.0x covenant: -10% headroom.
    hand = Hand(facility=48.4 * M, covenants=(("max_total_leverage", 4.0), ("min_interest_coverage", 2.0)))
    found = assess(package(hand, "PKG-C1"), FundPolicy(), TODAY)
    assert found.classes == ("decline", "approve_with_conditions")
    assert found.conditions == ("lower_amount",) and "covenant_breached_at_closing" in found.flags
    # Restructured: 15% headroom on 4.0x is 3.4x of 11.0m = 37.4m (coverage then 2.94x, 47% headroom).
    assert found.max_amount is not None and abs(found.max_amount - 37.4 * M) <= 1


def test_headroom_is_judged_against_each_covenants_own_floor() -> None:
    p = package(Hand(), "PKG-C2")  # 20% on leverage, 25% on interest cover
    assert assess(p, FundPolicy(min_headroom_pct=22.0), TODAY).classes == ("escalate",)
    per = FundPolicy(min_headroom_pct=22.0, min_headroom_by_metric={"max_total_leverage": 18.0})
    assert assess(p, per, TODAY).classes == ("approve",)


def test_a_springing_covenant_is_tested_only_once_the_revolver_is_drawn_past_its_trigger() -> None:
    springing = Covenant(metric="max_senior_leverage", level=3.5, springing_utilisation_pct=35.0)
    undrawn = package(Hand(), "PKG-C3")
    terms = undrawn.term_sheet.model_copy(update={"covenants": (*undrawn.term_sheet.covenants, springing)})
    assert assess(undrawn.model_copy(update={"term_sheet": terms}), FundPolicy(), TODAY).classes == (
        "approve",
    )
    drawn = package(Hand(drawn=2 * M), "PKG-C3")  # 40% of the 5.0m revolver
    terms = drawn.term_sheet.model_copy(update={"covenants": (*drawn.term_sheet.covenants, springing)})
    found = assess(drawn.model_copy(update={"term_sheet": terms}), FundPolicy(), TODAY)
    assert found.classes[0] == "decline" and "covenant_breached_at_closing" in found.flags
