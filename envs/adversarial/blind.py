"""The blind-policy battery: desks that never look at the evidence, against the reference's reward.

A domain offers a `BlindKit` as `BLIND` in its `blind` module (`envs.<domain>.blind`): blind moves (each a policy that
reads only what the work item and its visible records show and then makes one handling), how to
read a visible signature off a blind desk's trajectory, a learned desk for a signature → move table,
and fixed blind desks (a code table, a label desk). The battery fits the learned desk on one seed's
tasks (the best move per signature, by mean score) and scores every blind desk on another seed's,
next to the reference (the gold solutions) and doing nothing.

The rule for "hackable" is the project's: a blind desk that scores above doing nothing on a task
counts, except on tasks the visible facts legitimately decide (tagged `visible:<reason>` in data).
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from envs.adversarial.blind_report import BlindReport, BlindRow, summarize_blind
from envs.adversarial.parallel import Progress, per_task
from envs.adversarial.targets import family, score_all
from envs.contract import Trajectory
from envs.domain import DOMAINS
from envs.env import replay
from envs.rollout import NOOP, Policy, play
from envs.verifiers.evidence import visible_reason
from schemas.tasks import Task


@dataclass(frozen=True)
class BlindKit:
    """What a domain gives the blind battery."""

    moves: Mapping[str, Policy]
    """Blind move name → the blind desk that makes that move on every claim."""
    signature: Callable[[Task, Trajectory], tuple[str, ...]]
    """A blind desk's visible signatures of a task, most specific first, from its trajectory."""
    learned: Callable[[Mapping[str, str]], Policy]
    """The blind desk that plays a fitted signature → move table."""
    fixed: tuple[Policy, ...] = ()
    """Blind desks written by hand (a code table, a label desk)."""
    fittable: Callable[[Task], bool] = lambda task: True
    """Whether a task can teach the learned desk (one claim, say: a move is per claim)."""
    min_support: int = 2
    """Fitting tasks a signature needs before the learned desk trusts it (the coarsest level,
    the empty signature, always counts)."""


def blind_kit(domain: str) -> BlindKit | None:
    """The domain's kit (`envs.<domain>.blind.BLIND`), or None when it offers none."""
    try:
        module = importlib.import_module(f"envs.{DOMAINS.get(domain).name}.blind")
    except ModuleNotFoundError:
        return None
    kit = getattr(module, "BLIND", None)
    return kit if isinstance(kit, BlindKit) else None


def _move_scores(
    task: Task, kit_domain: str, verifier: str, seed: int
) -> tuple[tuple[str, ...], dict[str, float]]:
    kit = blind_kit(kit_domain)
    assert kit is not None
    domain = DOMAINS.get(task.domain)
    scores: dict[str, float] = {}
    signature: tuple[str, ...] = ()
    for name, policy in kit.moves.items():
        trajectory = play(task, policy, domain=domain, seed=seed).trajectory
        if not signature:
            signature = kit.signature(task, trajectory)
        verdict = score_all(task, trajectory, (verifier,))[verifier]
        scores[name] = verdict.score if not isinstance(verdict, str) else 0.0
    return signature, scores


def fit(
    tasks: Sequence[Task], verifier: str, *, seed: int = 0, workers: int = 1, progress: Progress | None = None
) -> dict[str, str]:
    """The best blind move per visible signature on `tasks` (single-claim tasks of one domain)."""
    if not tasks:
        return {}
    kit = blind_kit(tasks[0].domain)
    if kit is None:
        return {}
    job = partial(_move_scores, kit_domain=tasks[0].domain, verifier=verifier, seed=seed)
    results = per_task(job, tasks, workers=workers, progress=progress)
    totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    counts: dict[str, int] = defaultdict(int)
    order = list(kit.moves)
    for signature, scores in results:
        for key in signature:
            counts[key] += 1
            for move, value in scores.items():
                totals[key][move] += value
    return {
        key: max(order, key=lambda m: (moves.get(m, 0.0), -order.index(m)))
        for key, moves in totals.items()
        if counts[key] >= kit.min_support or key == ""
    }


def _blind_rows(task: Task, policies: Sequence[Policy], verifier: str, seed: int) -> list[BlindRow]:
    domain = DOMAINS.get(task.domain)
    runs: list[tuple[str, Trajectory]] = [
        ("reference", replay(domain, task, task.gold_solution, seed=seed)),
        ("nothing", play(task, NOOP, domain=domain, seed=seed).trajectory),
    ]
    runs += [(p.ref.model, play(task, p, domain=domain, seed=seed).trajectory) for p in policies]
    rows = []
    for name, trajectory in runs:
        verdict = score_all(task, trajectory, (verifier,))[verifier]
        score, passed = (0.0, False) if isinstance(verdict, str) else (verdict.score, verdict.passed)
        rows.append(
            BlindRow(
                task_id=task.task_id,
                family=family(task),
                policy=name,
                score=score,
                passed=passed,
                visible=visible_reason(task),
            )
        )
    return rows


def blind_report(
    tasks: Sequence[Task],
    fitting: Sequence[Task],
    verifier: str,
    *,
    seed: int = 0,
    workers: int = 1,
    progress: Progress | None = None,
) -> BlindReport | None:
    """The blind desks on `tasks` (the learned one fitted on `fitting`, another seed's tasks of the
    same domain) next to the reference and doing nothing; None when the domain has no kit."""
    if not tasks or (kit := blind_kit(tasks[0].domain)) is None:
        return None
    single = [t for t in fitting if t.domain == tasks[0].domain and kit.fittable(t)]
    table = fit(single, verifier, seed=seed, workers=workers)
    policies = [*kit.fixed, kit.learned(table)]
    job = partial(_blind_rows, policies=policies, verifier=verifier, seed=seed)
    rows = [row for found in per_task(job, tasks, workers=workers, progress=progress) for row in found]
    return summarize_blind(rows, verifier=verifier, policies=[p.ref.model for p in policies])
