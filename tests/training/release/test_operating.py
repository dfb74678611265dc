"""The canary test meets its stated rates: a bad canary is rarely promoted, a better one soon is."""

from __future__ import annotations

import random

import pytest

from training.release.operating import operating_point
from training.release.sequential import SprtSettings, sprt


def test_a_canary_at_half_the_champions_odds_is_promoted_at_most_five_percent_of_the_time() -> None:
    point = operating_point(0.5)
    assert point.promoted <= 0.05
    assert point.promoted + point.rolled_back_worse + point.rolled_back_undecided == pytest.approx(1.0)


def test_a_canary_with_twice_the_odds_is_promoted_within_forty_pairs_at_least_eighty_percent() -> None:
    point = operating_point(2.0)
    assert point.promoted_within(40) >= 0.8
    assert point.promoted_within(40) <= point.promoted_within(100) <= point.promoted


def test_the_old_hypotheses_promoted_a_half_odds_canary_far_too_often() -> None:
    old = SprtSettings(bad_odds_ratio=1 / 3, max_pairs=200)
    assert operating_point(0.5, old).promoted > 0.2 > operating_point(0.5).promoted


@pytest.mark.parametrize("psi", [0.5, 1.0, 2.0])
def test_the_exact_walk_agrees_with_running_the_test(psi: float) -> None:
    """Monte Carlo over `sprt` itself, with discordant pairs only (the test ignores the rest)."""
    rng = random.Random(5)
    theta = psi / (1 + psi)
    runs = 2000
    promoted = 0
    for _ in range(runs):
        wins = [rng.random() < theta for _ in range(SprtSettings().max_pairs)]
        promoted += sprt(wins, [not w for w in wins]).decision == "promote"
    assert promoted / runs == pytest.approx(operating_point(psi).promoted, abs=0.03)


def test_a_nonsense_odds_ratio_is_refused() -> None:
    with pytest.raises(ValueError):
        operating_point(0.0)
    with pytest.raises(ValueError):
        SprtSettings(bad_odds_ratio=0.5, good_odds_ratio=0.4)
