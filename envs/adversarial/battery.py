"""The exploit battery: every exploit policy on every task, scored by every verifier, against the
score of doing nothing on the same task."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from envs.adversarial.exploits import domain_exploits
from envs.adversarial.parallel import Progress, per_task
from envs.adversarial.report import BASELINE, ExploitReport, ExploitScore, summarize_exploits
from envs.adversarial.targets import changes_outcome, family, gold_views, score_all, verifier_names
from envs.domain import DOMAINS
from envs.env import DEFAULT_MAX_STEPS
from envs.rollout import NOOP, Policy, play
from schemas.tasks import Task


@dataclass
class TaskExploits:
    """What the battery gave on one task."""

    rows: list[ExploitScore] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def exploit_task(
    task: Task,
    *,
    policies: Sequence[Policy] | None,
    verifiers: Sequence[str],
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> TaskExploits:
    """Doing nothing, then each exploit, on `task`; every episode scored by every verifier."""
    out = TaskExploits()
    try:
        domain = DOMAINS.get(task.domain)
        golds = gold_views(task, domain, seed=seed)
    except Exception as exc:  # a task whose gold cannot be replayed is reported, not fatal
        out.errors.append(f"{task.task_id}: {type(exc).__name__}: {exc}")
        return out
    runs = [(BASELINE, NOOP), *((p.ref.model, p) for p in (policies or domain_exploits(task.domain)))]
    kind = family(task)
    for name, policy in runs:
        played = play(task, policy, domain=domain, seed=seed, max_steps=max_steps)
        trajectory, error = played.trajectory, played.error
        if error is not None:
            out.errors.append(f"{task.task_id} {name}: policy raised {error}")
        matches = not changes_outcome(domain.outcome_view(trajectory.final_world), golds)
        for verifier, verdict in score_all(task, trajectory, verifiers).items():
            if isinstance(verdict, str):
                out.errors.append(f"{task.task_id} {name} [{verifier}]: {verdict}")
                continue
            out.rows.append(
                ExploitScore(
                    task_id=task.task_id,
                    family=kind,
                    verifier=verifier,
                    policy=name,
                    score=verdict.score,
                    outcome_matches_gold=matches,
                    passed_checks=tuple(c.name for c in verdict.checks if c.passed),
                    failed_checks=tuple(c.name for c in verdict.checks if not c.passed),
                )
            )
    return out


def exploit_report(
    tasks: Sequence[Task],
    policies: Sequence[Policy] | None = None,
    verifiers: Sequence[str] | None = None,
    *,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    workers: int = 1,
    progress: Progress | None = None,
) -> ExploitReport:
    """Each exploit's score per task next to doing nothing's, the hackable share per verifier, and
    every (task, exploit) above doing nothing with its passing and failing checks.

    `policies` defaults to the generic exploits plus those of each task's domain; `verifiers` to the
    verifiers the tasks name (each task is retargeted to each)."""
    if policies is not None:
        names = [p.ref.model for p in policies]
        if len(set(names)) != len(names) or BASELINE in names:
            raise ValueError(f"exploit names must be unique and not {BASELINE!r}: {names}")
    targets = verifier_names(tasks, verifiers)
    job = partial(exploit_task, policies=policies, verifiers=targets, seed=seed, max_steps=max_steps)
    results = per_task(job, tasks, workers=workers, progress=progress)
    rows = [row for r in results for row in r.rows]
    if policies is not None:
        ran = [p.ref.model for p in policies]
    else:
        ran = list(dict.fromkeys(p.ref.model for task in tasks for p in domain_exploits(task.domain)))
    return summarize_exploits(
        rows, policies=ran, verifiers=targets, errors=[e for r in results for e in r.errors]
    )
