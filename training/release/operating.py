"""The canary test's operating characteristics, computed exactly. Pure.

For a canary whose odds of passing are `psi` times the champion's, each discordant pair is a win
for the canary with probability theta = psi / (1 + psi), independently. The sequential test's
state is just (wins, losses), so the chance of every ending is a walk over that lattice: at most
`max_pairs` steps, no simulation, no sampling error. `docs/release.md`'s table and
`bench/sprt.py` come from here; the tests check it against a Monte Carlo run of `sprt` itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from training.release.sequential import SprtSettings


@dataclass(frozen=True)
class OperatingPoint:
    """What the test does with a canary at one odds ratio."""

    psi: float
    promoted: float
    """Chance the test ends in promote."""
    rolled_back_worse: float
    """Chance it ends crossing the lower bound."""
    rolled_back_undecided: float
    """Chance it reaches `max_pairs` undecided (also a roll back)."""
    mean_pairs: float
    """Expected discordant pairs until the decision."""
    promoted_by: dict[int, float]
    """Chance of having promoted within n discordant pairs, for every n up to `max_pairs`."""

    def promoted_within(self, pairs: int) -> float:
        """Chance of a promotion within `pairs` discordant pairs."""
        if pairs < 1:
            return 0.0
        return self.promoted_by[min(pairs, max(self.promoted_by))]


def operating_point(psi: float, settings: SprtSettings | None = None) -> OperatingPoint:
    """The exact chance of each ending of the test for a canary at odds ratio `psi`."""
    if psi <= 0:
        raise ValueError("psi must be positive")
    s = settings or SprtSettings()
    theta = psi / (1 + psi)
    alive: dict[int, float] = {0: 1.0}  # wins -> probability, after n pairs, still undecided
    promoted = worse = undecided = mean = 0.0
    promoted_by: dict[int, float] = {}
    for n in range(1, s.max_pairs + 1):
        step: dict[int, float] = {}
        for wins, p in alive.items():
            step[wins + 1] = step.get(wins + 1, 0.0) + p * theta
            step[wins] = step.get(wins, 0.0) + p * (1 - theta)
        alive = {}
        for wins, p in step.items():
            losses = n - wins
            decision = s.crossing(wins, losses)
            if decision == "continue":
                alive[wins] = p
                continue
            mean += n * p
            if decision == "promote":
                promoted += p
            elif s.llr(wins, losses) <= s.lower:
                worse += p
            else:
                undecided += p
        promoted_by[n] = promoted
        if not alive:
            break
    return OperatingPoint(
        psi=psi,
        promoted=promoted,
        rolled_back_worse=worse,
        rolled_back_undecided=undecided,
        mean_pairs=mean,
        promoted_by=promoted_by,
    )
