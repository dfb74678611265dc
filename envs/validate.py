"""Gold replay validation: a task is usable only if every gold trajectory (the gold solution and
each alternative) scores 1.0 and doing nothing scores 0 (design.md §5). With an outcome spec this
also proves the spec can be met, and by every resolution the task claims is acceptable. Problems
are reported as data, one line each, never raised."""

from __future__ import annotations

from collections.abc import Iterable

from envs.contract import EnvError
from envs.domain import DOMAINS, DomainRegistry, UnknownDomain
from envs.env import ToolEnv, replay
from envs.verifiers.base import VERIFIERS, UnknownVerifier, VerifierRegistry
from schemas.base import Contract
from schemas.tasks import Task
from schemas.tools import ToolCall
from schemas.verdicts import Verdict


class TaskValidation(Contract):
    """What gold replay validation found for one task."""

    task_id: str
    """The task."""
    tags: tuple[str, ...] = ()
    """The task's tags, for per-category reports."""
    gold: Verdict | None = None
    """Verdict on the gold solution (None when it could not be scored)."""
    alternatives: tuple[Verdict, ...] = ()
    """Verdicts on the alternative gold trajectories, in order."""
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
    verdicts: list[Verdict] = []
    try:
        for label, calls in (("gold solution", task.gold_solution), *_alternatives(task)):
            run = replay(domain, task, calls, seed=seed)
            if len(run.turns) < len(calls):
                problems.append(
                    f"{label} has {len(calls) - len(run.turns)} call(s) after the episode ended ({run.end_reason})"
                )
            verdict = verifier.score(task, run)
            verdicts.append(verdict)
            if not verdict.passed:
                failed = "; ".join(f"{c.name}: {c.explanation}" for c in verdict.checks if not c.passed)
                problems.append(f"{label} scores {verdict.score:.2f}, not 1.0 ({failed or 'no checks'})")
        env = ToolEnv(domain)
        env.reset(task, seed=seed)
        noop_run = env.trajectory()
    except EnvError as exc:
        return TaskValidation(task_id=task.task_id, tags=task.tags, problems=(str(exc),))
    gold, noop = verdicts[0], verifier.score(task, noop_run)
    if noop.score != 0.0:
        problems.append(
            f"doing nothing scores {noop.score:.2f}, not 0: no outcome path tells the gold result "
            "apart from the initial world"
        )
    return TaskValidation(
        task_id=task.task_id,
        tags=task.tags,
        gold=gold,
        alternatives=tuple(verdicts[1:]),
        noop=noop,
        problems=tuple(problems),
    )


def _alternatives(task: Task) -> list[tuple[str, tuple[ToolCall, ...]]]:
    return [(f"alternative gold {i}", calls) for i, calls in enumerate(task.alternative_solutions, start=1)]


def validate_tasks(tasks: Iterable[Task], *, seed: int = 0) -> list[TaskValidation]:
    """Validate every task, in order."""
    return [validate_task(task, seed=seed) for task in tasks]
