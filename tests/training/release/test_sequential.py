"""The canary's sequential test decides on its own, with evidence, and its error rates hold."""

from __future__ import annotations

import itertools
import random

import pytest

from training.release.sequential import SprtSettings, llr_path, sprt


def _arm(rng: random.Random, rate: float, n: int) -> list[bool]:
    return [rng.random() < rate for _ in range(n)]


def _odds_rate(champion_rate: float, odds_ratio: float) -> float:
    odds = odds_ratio * champion_rate / (1 - champion_rate)
    return odds / (1 + odds)


def test_a_canary_that_fails_where_the_champion_passes_is_rolled_back_with_its_evidence() -> None:
    result = sprt([False] * 30, [True] * 30)
    assert result.decision == "roll_back"
    assert result.champion_wins == result.pairs and result.canary_wins == 0
    assert result.llr <= result.lower and "worse than the champion" in result.reason
    assert result.evidence()["champion_passes"] == 30


def test_a_canary_that_passes_where_the_champion_fails_is_promoted() -> None:
    result = sprt([True] * 30, [False] * 30)
    assert result.decision == "promote" and result.llr >= result.upper and result.canary_wins == result.pairs


def test_agreeing_arms_say_nothing_so_the_test_keeps_collecting() -> None:
    result = sprt([True, False, True] * 5, [True, False, True] * 5)
    assert result.decision == "continue" and result.llr == 0 and result.pairs == 15


def test_a_few_episodes_are_not_enough_to_decide() -> None:
    assert sprt([False, True], [True, True]).decision == "continue"


def test_an_undecided_canary_is_rolled_back_at_the_pair_limit() -> None:
    alternating = [True, False] * 20
    result = sprt(alternating, [not x for x in alternating], SprtSettings(max_pairs=10))
    assert result.decision == "roll_back" and result.pairs == 10 and "undecided" in result.reason


def test_the_decision_stops_at_the_first_crossing_and_ignores_later_episodes() -> None:
    early = sprt([False] * 11, [True] * 11)
    later = sprt([False] * 11 + [True] * 50, [True] * 11 + [False] * 50)
    assert early.decision == later.decision == "roll_back" and early.pairs == later.pairs


@pytest.mark.parametrize(("alpha", "champion_rate"), [(0.05, 0.8), (0.1, 0.6)])
def test_a_bad_canary_is_promoted_at_most_alpha_of_the_time(alpha: float, champion_rate: float) -> None:
    settings = SprtSettings(alpha=alpha, beta=0.05, max_pairs=10_000)
    rng = random.Random(7)
    bad = _odds_rate(champion_rate, settings.bad_odds_ratio)
    runs = 1000
    promoted = sum(
        sprt(_arm(rng, bad, 600), _arm(rng, champion_rate, 600), settings).decision == "promote"
        for _ in range(runs)
    )
    assert promoted / runs <= alpha + 0.02


@pytest.mark.parametrize(("beta", "rate"), [(0.05, 0.8), (0.1, 0.5)])
def test_a_canary_as_good_as_the_champion_is_rolled_back_at_most_beta_of_the_time(
    beta: float, rate: float
) -> None:
    settings = SprtSettings(alpha=0.05, beta=beta, max_pairs=10_000)
    rng = random.Random(11)
    runs = 1000
    outcomes = [sprt(_arm(rng, rate, 600), _arm(rng, rate, 600), settings).decision for _ in range(runs)]
    assert outcomes.count("roll_back") / runs <= beta + 0.02
    assert outcomes.count("promote") / runs >= 1 - beta - 0.02


def test_a_much_worse_canary_is_almost_always_rolled_back() -> None:
    rng = random.Random(3)
    outcomes = [sprt(_arm(rng, 0.3, 300), _arm(rng, 0.9, 300)).decision for _ in range(500)]
    assert outcomes.count("roll_back") / 500 >= 0.99


@pytest.mark.parametrize("bad", [{"bad_odds_ratio": 1.5}, {"alpha": 0.0}, {"beta": 0.7}, {"max_pairs": 0}])
def test_settings_that_make_no_sense_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        SprtSettings(**bad)  # type: ignore[arg-type]


def test_the_path_ends_where_the_test_decided() -> None:
    canary, champion = [True] * 30, [False] * 30
    path = llr_path(canary, champion)
    result = sprt(canary, champion)
    assert path[-1] == result.llr >= result.upper and len(path) == result.canary_wins
    assert all(a < b for a, b in itertools.pairwise(path))
