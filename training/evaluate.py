"""Paired evaluation through the environment: pass@1 and pass^k per suite and family, a candidate
against the champion on the same tasks and seeds, with bootstrap confidence intervals.

Each (task, seed) is one trial, run in a fresh environment and scored by the task's verifier. The
difference between two policies is paired per task (the same tasks, the same seeds) and its 95%
interval comes from resampling tasks, so a few hard tasks cannot pass for a trend.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from engine import Policy
from envs.rollout.episode import EpisodeRecord
from envs.rollout.runner import RolloutConfig, run_rollouts
from schemas.tasks import Task
from training.data.sources import task_family, task_key


class Trial(BaseModel):
    """One rollout's outcome."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    """The task's id and the start of its content hash (`rcm-edge-multi_carc-000#3f9a…`): generated
    sets reuse ids across generator seeds, so the id alone does not name a task."""
    seed: int
    family: str
    passed: bool
    score: float
    verifier: str = ""
    """The verifier that scored it (name and version)."""


class SuiteRun(BaseModel):
    """Every trial of one policy on one suite."""

    suite: str
    policy: str
    trials: list[Trial]

    def pass_at_1(self) -> float:
        """Share of trials that passed."""
        return sum(t.passed for t in self.trials) / len(self.trials) if self.trials else 0.0

    def pass_hat_k(self) -> float:
        """Share of tasks whose every trial passed (k = trials per task)."""
        by_task = _by_task(self.trials)
        return sum(all(by_task[t]) for t in by_task) / len(by_task) if by_task else 0.0


class FamilyRow(BaseModel):
    """One family of a paired suite."""

    family: str
    tasks: int
    candidate: float
    champion: float


class PairedSuite(BaseModel):
    """A candidate and the champion on the same tasks and seeds."""

    suite: str
    tasks: int
    trials_per_task: int
    candidate: float
    """Candidate pass@1."""
    champion: float
    """Champion pass@1."""
    delta: float
    """candidate - champion, in points of pass@1 (percentage points / 100)."""
    ci_low: float
    ci_high: float
    """95% bootstrap interval of `delta` (tasks resampled)."""
    candidate_pass_hat_k: float
    champion_pass_hat_k: float
    pass_to_fail: int
    """Trials the champion passed and the candidate failed."""
    fail_to_pass: int
    families: list[FamilyRow] = Field(default_factory=list)
    verifiers: list[str] = Field(default_factory=list)
    """Every verifier that scored the suite's trials."""


class EvalReport(BaseModel):
    """A candidate against the champion on every suite."""

    candidate: str
    champion: str
    seeds: list[int]
    suites: list[PairedSuite]

    def suite(self, name: str) -> PairedSuite:
        for suite in self.suites:
            if suite.suite == name:
                return suite
        raise KeyError(f"no suite {name!r} in the report (have {', '.join(s.suite for s in self.suites)})")

    def verifiers(self) -> list[str]:
        """Every verifier that scored a trial of any suite."""
        return sorted({v for s in self.suites for v in s.verifiers})


def run_suite(
    policy: Policy,
    suite: str,
    tasks: Sequence[Task],
    seeds: Sequence[int],
    *,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> SuiteRun:
    """Roll `policy` out on every task once per seed (in this process) and score each trial."""
    keys = [task_key(t) for t in tasks]
    trials = []
    for seed in seeds:
        records = run_rollouts(tasks, policy, config=RolloutConfig(seed=seed), on_record=on_record)
        trials += [
            Trial(
                task_id=key,
                seed=seed,
                family=task_family(task),
                passed=r.verdict.passed,
                score=r.verdict.score,
                verifier=r.verdict.verifier,
            )
            for key, task, r in zip(keys, tasks, records, strict=True)
        ]
    return SuiteRun(suite=suite, policy=policy.ref.model, trials=trials)


def pair(candidate: SuiteRun, champion: SuiteRun, *, resamples: int = 2000, seed: int = 0) -> PairedSuite:
    """Compare two runs of the same suite trial by trial; raises when their trials differ."""
    mine = {(t.task_id, t.seed): t for t in candidate.trials}
    theirs = {(t.task_id, t.seed): t for t in champion.trials}
    if mine.keys() != theirs.keys():
        raise ValueError(f"suite {candidate.suite}: the two runs did not play the same tasks and seeds")
    cand, champ = _by_task(candidate.trials), _by_task(champion.trials)
    tasks = sorted(cand)
    diffs = [_mean(cand[t]) - _mean(champ[t]) for t in tasks]
    low, high = bootstrap_interval(diffs, resamples=resamples, seed=seed)
    families: dict[str, list[str]] = defaultdict(list)
    for trial in candidate.trials:
        if trial.task_id not in families[trial.family]:
            families[trial.family].append(trial.task_id)
    return PairedSuite(
        suite=candidate.suite,
        tasks=len(tasks),
        trials_per_task=len(candidate.trials) // max(1, len(tasks)),
        candidate=candidate.pass_at_1(),
        champion=champion.pass_at_1(),
        delta=candidate.pass_at_1() - champion.pass_at_1(),
        ci_low=low,
        ci_high=high,
        candidate_pass_hat_k=candidate.pass_hat_k(),
        champion_pass_hat_k=champion.pass_hat_k(),
        pass_to_fail=sum(theirs[k].passed and not mine[k].passed for k in mine),
        fail_to_pass=sum(mine[k].passed and not theirs[k].passed for k in mine),
        families=[
            FamilyRow(
                family=family,
                tasks=len(ids),
                candidate=_mean([p for t in ids for p in cand[t]]),
                champion=_mean([p for t in ids for p in champ[t]]),
            )
            for family, ids in sorted(families.items())
        ],
        verifiers=sorted({t.verifier for t in (*candidate.trials, *champion.trials) if t.verifier}),
    )


def bootstrap_interval(
    diffs: Sequence[float], *, resamples: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile interval of the mean of `diffs` over resamples of them (with replacement)."""
    if not diffs:
        return 0.0, 0.0
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    tail = (1.0 - level) / 2.0
    return means[int(tail * (resamples - 1))], means[int((1.0 - tail) * (resamples - 1))]


def _by_task(trials: Sequence[Trial]) -> dict[str, list[bool]]:
    found: dict[str, list[bool]] = defaultdict(list)
    for trial in trials:
        found[trial.task_id].append(trial.passed)
    return found


def _mean(values: Sequence[bool | float]) -> float:
    return sum(float(v) for v in values) / len(values) if values else 0.0
