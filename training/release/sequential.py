"""The canary's sequential test: promote, keep collecting, or roll back, with its evidence. Pure.

Each episode passes or fails (its verifier score reaches the bar and no later business outcome
contradicts it). Canary and champion episodes are paired in the order they finish: the i-th
canary episode with the i-th champion episode. A pair where both pass or both fail says nothing
about which is better; in a discordant pair the canary wins with probability
theta = psi / (1 + psi), where psi is the odds ratio of passing (canary over champion), whatever the two
pass rates are. Wald's sequential probability ratio test on the discordant pairs compares

    H_good: psi = psi_good   (default 1: the canary is as good as the champion) → promote
    H_bad:  psi = psi_bad    (default 1/2: half the champion's odds)            → roll back

stopping when the log-likelihood ratio crosses log((1 - beta) / alpha) (promote) or log(beta / (1 - alpha))
(roll back). alpha bounds the chance of promoting a bad canary and beta of rolling back a good one
(Wald's bounds). The test is valid whenever it is looked at, so it runs after every episode. With
`max_pairs` discordant pairs and no decision, it rolls back: a canary that cannot show it is as good
is not promoted. `training.release.operating` computes the exact chance of each ending for any
psi (the table in docs/release.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Decision = Literal["promote", "continue", "roll_back"]


@dataclass(frozen=True)
class SprtSettings:
    """The test's hypotheses and error rates."""

    bad_odds_ratio: float = 0.5
    """psi_bad: the canary's odds of passing relative to the champion's that count as worse."""
    good_odds_ratio: float = 1.0
    """psi_good: the odds ratio that counts as good enough to promote (1: as good as the champion)."""
    alpha: float = 0.05
    """Largest chance of promoting a canary at psi_bad."""
    beta: float = 0.05
    """Largest chance of rolling back a canary as good as the champion."""
    max_pairs: int = 100
    """Discordant pairs after which an undecided canary is rolled back."""

    def __post_init__(self) -> None:
        if not 0 < self.bad_odds_ratio < 1:
            raise ValueError("bad_odds_ratio must lie between 0 and 1 (worse than the champion)")
        if not self.bad_odds_ratio < self.good_odds_ratio:
            raise ValueError("good_odds_ratio must be above bad_odds_ratio")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must lie between 0 and 0.5")
        if self.max_pairs < 1:
            raise ValueError("max_pairs must be at least 1")

    @property
    def upper(self) -> float:
        """Promote at or above this log-likelihood ratio."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        """Roll back at or below this log-likelihood ratio."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def win_step(self) -> float:
        """What a discordant pair the canary wins adds."""
        return math.log(_theta(self.good_odds_ratio) / _theta(self.bad_odds_ratio))

    @property
    def loss_step(self) -> float:
        """What a discordant pair the champion wins adds (negative)."""
        return math.log((1 - _theta(self.good_odds_ratio)) / (1 - _theta(self.bad_odds_ratio)))

    def llr(self, wins: int, losses: int) -> float:
        """The log-likelihood ratio after `wins` and `losses` discordant pairs."""
        return wins * self.win_step + losses * self.loss_step

    def crossing(self, wins: int, losses: int) -> Decision:
        """The decision at this point of the path, before any later pair is seen."""
        llr = self.llr(wins, losses)
        if llr >= self.upper:
            return "promote"
        if llr <= self.lower or wins + losses >= self.max_pairs:
            return "roll_back"
        return "continue"


def _theta(odds_ratio: float) -> float:
    """The chance the canary wins a discordant pair at this odds ratio."""
    return odds_ratio / (1 + odds_ratio)


@dataclass(frozen=True)
class SprtResult:
    """The decision and everything it read."""

    decision: Decision
    reason: str
    canary_episodes: int
    canary_passes: int
    champion_episodes: int
    champion_passes: int
    pairs: int
    canary_wins: int
    champion_wins: int
    llr: float
    upper: float
    lower: float

    def evidence(self) -> dict[str, float]:
        """The numbers as an event's `metrics`/`evidence`."""
        return {
            "canary_episodes": self.canary_episodes,
            "canary_passes": self.canary_passes,
            "champion_episodes": self.champion_episodes,
            "champion_passes": self.champion_passes,
            "pairs": self.pairs,
            "canary_wins": self.canary_wins,
            "champion_wins": self.champion_wins,
            "llr": round(self.llr, 6),
            "upper": round(self.upper, 6),
            "lower": round(self.lower, 6),
        }


def sprt(
    canary: Sequence[bool], champion: Sequence[bool], settings: SprtSettings | None = None
) -> SprtResult:
    """Run the test over the outcomes so far (each list in finishing order), stopping at the first
    crossing; the decision is reproducible from the same outcomes."""
    s = settings or SprtSettings()
    wins = losses = 0
    decision: Decision = "continue"
    pairs = min(len(canary), len(champion))
    used = 0
    for c, h in zip(canary, champion, strict=False):
        used += 1
        if c == h:
            continue
        if c:
            wins += 1
        else:
            losses += 1
        decision = s.crossing(wins, losses)
        if decision != "continue":
            break
    llr = s.llr(wins, losses)
    canary_rate = _rate(canary[:used]) if used else "n/a"
    champion_rate = _rate(champion[:used]) if used else "n/a"
    if decision == "promote":
        reason = (
            f"at least as good as the champion: the canary won {wins} of {wins + losses} discordant pairs"
        )
    elif decision == "roll_back" and llr <= s.lower:
        reason = f"worse than the champion: the canary lost {losses} of {wins + losses} discordant pairs"
    elif decision == "roll_back":
        reason = f"undecided after {s.max_pairs} discordant pairs ({wins} won): not shown to be as good"
    else:
        reason = f"collecting: {wins} won, {losses} lost of {wins + losses} discordant pairs"
    reason += f" (pass rate {canary_rate} vs {champion_rate} over {used} pairs; LLR {llr:+.2f} in [{s.lower:.2f}, {s.upper:.2f}])"
    return SprtResult(
        decision=decision,
        reason=reason,
        canary_episodes=len(canary),
        canary_passes=sum(canary),
        champion_episodes=len(champion),
        champion_passes=sum(champion),
        pairs=used if decision != "continue" else pairs,
        canary_wins=wins,
        champion_wins=losses,
        llr=llr,
        upper=s.upper,
        lower=s.lower,
    )


def _rate(outcomes: Sequence[bool]) -> str:
    return f"{100 * sum(outcomes) / len(outcomes):.0f}%"


def llr_path(
    canary: Sequence[bool], champion: Sequence[bool], settings: SprtSettings | None = None
) -> list[float]:
    """The log-likelihood ratio after each discordant pair, up to the decision (what `sprt` walked)."""
    s = settings or SprtSettings()
    wins = losses = 0
    path: list[float] = []
    for c, h in zip(canary, champion, strict=False):
        if c == h:
            continue
        wins, losses = wins + c, losses + (not c)
        path.append(s.llr(wins, losses))
        if s.crossing(wins, losses) != "continue":
            break
    return path
