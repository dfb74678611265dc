"""The demo improvement stage's configuration: what it trains, judges and serves, and why each size
is what it is (`StageConfig`; the demo runs `DEMO_STAGE`)."""

from __future__ import annotations

from dataclasses import dataclass

from training.gate import GateRules
from training.structured.bootstrap import BootstrapSpec

PROMOTED_SET = "rcm-promoted"
"""What stage 8 publishes (under the promotion stage's task-set registry)."""
CHAMPION = BootstrapSpec()
"""The demo's champion is the reference policy itself: `loopline train bootstrap` with its defaults
(generator seeds 1-6 of `rcm-base`, 96 wide, three layers, 10 epochs), trained once on one torch
thread (`TORCH_THREADS`) and cached under the state folder. A smaller champion holds the families
decided by evidence less firmly, and any adapter flips more of its borderline cases (its measured
figures and the time it takes: docs/release.md)."""
TORCH_THREADS = 1
"""The stage's torch intra-op threads: the structured policy's small matrices run much faster on
one thread than on contended ones (the serving, scoring and training threads of this one process
share the cores), and a fixed count keeps its training bit-reproducible."""
BASE_NAME = "demo-champion"
TRAIN_SEED, EVAL_SEED, DAY_SEED = 1, 2, 3
"""Instance seeds: what the adapter learns, what the gate judges, what the second day serves."""
TRAIN_PER_CASE, EVAL_PER_CASE, DAY_PER_CASE = 8, 40, 8
"""Instances of each promoted case per use: the gate's promoted suite is 40 per case, so that its
interval is narrow enough for the default +40 rule to mean something."""
BASE_EVAL = (0, 40)
"""(generator seed, tasks per CARC) of the gate's base suite: 680 tasks the champion never saw, 40
per family. Any adapter changes some of a champion's borderline decisions both ways; the -2 rule
is judged at the bound of the paired interval, whose half-width is about
1.96 * sqrt(discordant share / tasks), so the suite must be large enough for that half-width to sit
well inside 2 points at the churn an adapter causes, or the rule cannot tell a loss from churn
(the measured churn and both suite sizes: docs/release.md). With 40 a family, the per-family rule
(no family down more than 10 points) lets a family lose four cases but not five."""
DAY_BASE = (11, 2)
"""(generator seed, tasks per CARC) of the second day's base mix (a seed neither the champion, the
rehearsal nor the gate reads)."""
REPLAY_RATIO = 0.95
"""Share of replay rows (the champion's own training seeds and the rehearsal): nineteen base rows for
each promoted-case row, so that the adapter moves as few of the champion's base decisions as it can;
at nine a fresh run's adapter miscopied the contracted rate in five of 40 fee-schedule write-offs and
the per-family rule stopped it (what other shares, ranks and epochs did: docs/release.md)."""
REHEARSAL_SEEDS = (7, 8, 9, 10)
"""Generator seeds of `rcm-base` whose cases of the promoted cases' own families (`source_families`)
join the replay buffer: the adapter sees each exception beside its family's ordinary cases."""
EPOCHS = 8
"""Training passes over the cycle's dataset: enough for the adapter to learn every expressible
promoted case from its 8 instances beside nine times as many replay rows."""
MIN_GAIN_POINTS = 40.0
"""What the stage claims: the adapter passes at least 40 points more of the day's promoted cases."""


@dataclass(frozen=True)
class StageConfig:
    """What the stage trains, judges and serves (the defaults: the demo's constants above)."""

    champion: BootstrapSpec = CHAMPION
    """The champion, trained once and cached under the state folder; its task set and seeds are the
    cycle's replay buffer."""
    train_per_case: int = TRAIN_PER_CASE
    eval_per_case: int = EVAL_PER_CASE
    day_per_case: int = DAY_PER_CASE
    base_eval: tuple[int, int] = BASE_EVAL
    """(generator seed, tasks per CARC) of the gate's base suite."""
    day_base: tuple[int, int] = DAY_BASE
    """(generator seed, tasks per CARC) of the second day's base mix."""
    replay_ratio: float = REPLAY_RATIO
    rehearsal_seeds: tuple[int, ...] = REHEARSAL_SEEDS
    epochs: int = EPOCHS
    min_gain_points: float = MIN_GAIN_POINTS
    gate_rules: GateRules | None = None
    """The cycle's gate (None: the product's default, `training.gate.DEFAULT_RULES`)."""


DEMO_STAGE = StageConfig()
"""The demo's stage."""
