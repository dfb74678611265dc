"""Gold replay validation: a task is usable only if its gold solution scores 1.0 and doing nothing
scores 0 (design.md §5). Problems are reported as data, one line each, never raised."""

from __future__ import annotations

from collections.abc import Iterable

from envs.contract import EnvError
from envs.domain import DOMAINS, DomainRegistry, UnknownDomain
from envs.env import ToolEnv, replay
from envs.verifiers.base import VERIFIERS, UnknownVerifier, VerifierRegistry
from schemas.base import Contract
from schemas.tasks import Task
from schemas.verdicts import Verdict


class TaskValidation(Contract):
    """What gold replay validation found for one task."""

    task_id: str
    """The task."""
    tags: tuple[str, ...] = ()
    """The task's tags, for per-category reports."""
    gold: Verdict | None = None
    """Verdict on the gold solution (None when it could not be scored)."""
    noop: Verdict | None = None
    """Verdict on the empty trajectory."""
    problems: tuple[str, ...] = ()
    """Every reason the task is not valid; empty when it is."""

    @property
    def ok(self) -> bool:
        """Valid: gold scores 1.0, doing nothing scores 0."""
        return not self.problems


def validate_task(
    task: Task, *, seed: int = 0, verifiers: VerifierRegistry = VERIFIERS, domains: DomainRegistry = DOMAINS
) -> TaskValidation:
    """Replay the gold solution and the empty trajectory into fresh environments and score both."""
    problems: list[str] = []
    try:
        domain = domains.get(task.domain)
        verifier = verifiers.get(task.verifier.verifier)
    except (UnknownDomain, UnknownVerifier) as exc:
        return TaskValidation(task_id=task.task_id, tags=task.tags, problems=(str(exc.args[0]),))
    try:
        gold_run = replay(domain, task, task.gold_solution, seed=seed)
        env = ToolEnv(domain)
        env.reset(task, seed=seed)
        noop_run = env.trajectory()
    except EnvError as exc:
        return TaskValidation(task_id=task.task_id, tags=task.tags, problems=(str(exc),))
    if len(gold_run.turns) < len(task.gold_solution):
        problems.append(
            f"gold solution has {len(task.gold_solution) - len(gold_run.turns)} call(s) after the episode "
            f"ended ({gold_run.end_reason})"
        )
    gold, noop = verifier.score(task, gold_run), verifier.score(task, noop_run)
    if not gold.passed:
        failed = "; ".join(f"{c.name}: {c.explanation}" for c in gold.checks if not c.passed)
        problems.append(f"gold solution scores {gold.score:.2f}, not 1.0 ({failed or 'no checks'})")
    if noop.score != 0.0:
        problems.append(
            f"doing nothing scores {noop.score:.2f}, not 0: no outcome path tells the gold result "
            "apart from the initial world"
        )
    return TaskValidation(
        task_id=task.task_id, tags=task.tags, gold=gold, noop=noop, problems=tuple(problems)
    )


def validate_tasks(tasks: Iterable[Task], *, seed: int = 0) -> list[TaskValidation]:
    """Validate every task, in order."""
    return [validate_task(task, seed=seed) for task in tasks]
