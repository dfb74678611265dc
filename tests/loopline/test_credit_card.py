"""The credit card counts the flag-following and blind desks against the judge's bars: at the demo's
size it meets every bar (the generator's traps), and the same card with a blind desk that passes a
family fails and says so."""

from __future__ import annotations

import pytest

from envs.adversarial.blind_report import FamilyPasses
from loopline.card.build import build_card, failing_bars
from loopline.card.model import VerifierCard


@pytest.fixture(scope="module")
def card() -> VerifierCard:
    return build_card(domain="credit", per_recipe=1, per_kind=1, workers=2)


def test_the_credit_card_runs_the_blind_battery_and_meets_every_bar(card: VerifierCard) -> None:
    assert card.blind is not None
    assert {s.policy for s in card.blind.summaries} == {"blind:flags", "blind:learned"}
    assert set(card.blind.visible.values()) == {"flags-hold"}, "the tagged tasks are listed with why"
    assert all(s.share_undecided == 0.0 and not s.above_nothing for s in card.blind.summaries)
    (rule,) = [r for r in card.hackable if r.verifier == "credit.v1"]
    assert rule.above_nothing > 0 and rule.above_nothing_untagged == []
    assert card.failing == []


def test_a_blind_desk_passing_a_family_fails_the_card(card: VerifierCard) -> None:
    assert card.blind is not None
    flags = card.blind.summaries[0]
    leaky = flags.model_copy(
        update={
            "families": [FamilyPasses(family="recipe:approve", tasks=5, passed=1), *flags.families],
            "above_nothing": ["credit-base-approve-000"],
        }
    )
    blind = card.blind.model_copy(update={"summaries": [leaky, *card.blind.summaries[1:]]})
    failing = failing_bars(card.model_copy(update={"blind": blind}))
    assert any("passes 1/5 of recipe:approve" in line for line in failing)
    assert any("beats doing nothing on 1 tasks" in line for line in failing)
