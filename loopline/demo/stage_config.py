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
(generator seeds 1-6 of `rcm-base`, 96 wide, three layers, 10 epochs; 95.9% of the gate's 340-task
base suite). Trained once on one torch thread (`TORCH_THREADS`), about 8 minutes on an idle 2-core
machine, and cached under the state folder. Smaller champions (two seeds, 64 wide, two layers) held
the evidence families (CO-29, CO-197, CO-50) at 55-75%, so any adapter flipped their borderline
cases and the gate rightly stopped the cycle on base."""
TORCH_THREADS = 1
"""The stage's torch intra-op threads: the structured policy's small matrices run about 25 times
faster on one thread than on two contended ones (the serving, scoring and training threads of this
one process share two cores), and a fixed count keeps its training bit-reproducible."""
BASE_NAME = "demo-champion"
TRAIN_SEED, EVAL_SEED, DAY_SEED = 1, 2, 3
"""Instance seeds: what the adapter learns, what the gate judges, what the second day serves."""
TRAIN_PER_CASE, EVAL_PER_CASE, DAY_PER_CASE = 8, 40, 8
"""Instances of each promoted case per use: the gate's promoted suite is 40 per case, so that its
interval is narrow enough for the default +40 rule to mean something."""
BASE_EVAL = (0, 40)
"""(generator seed, tasks per CARC) of the gate's base suite: 680 tasks the champion never saw, 40
per family. Any adapter changes some of a champion's borderline decisions both ways (about 6% of
base cases here); the -2 rule is judged at the bound of the paired interval, whose half-width is
about 1.96 * sqrt(discordant share / tasks): 2.5 points over 340 tasks for that share, 1.8 over 680.
So over 340 tasks even an adapter that loses nothing on average fails the rule, and 680 is about the
smallest suite on which the -2 bound can tell a loss from churn. With 40 a family, the per-family
rule (no family down more than 10 points) lets a family lose four cases but not five. Evaluating it
costs about 20 s per policy on two cores."""
DAY_BASE = (11, 2)
"""(generator seed, tasks per CARC) of the second day's base mix (a seed neither the champion, the
rehearsal nor the gate reads)."""
REPLAY_RATIO = 0.9
"""Share of replay rows (the champion's own training seeds and the rehearsal): nine base rows for
each promoted-case row, so that the adapter moves as few of the champion's base decisions as it can
(measured on one promoted set: 0.8 and no rehearsal 15 pass->fail / 5 fail->pass over 340 base
tasks; 0.9 with the rehearsal 9 / 8)."""
REHEARSAL_SEEDS = (7, 8, 9, 10)
"""Generator seeds of `rcm-base` whose cases of the promoted cases' own families (`source_families`)
join the replay buffer: the adapter sees each exception beside its family's ordinary cases."""
EPOCHS = 8
"""Training passes over the cycle's dataset (4 left one of seven promoted cases unlearned)."""
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
