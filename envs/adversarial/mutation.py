"""The mutation run: replay every mutant of every task, judge the outcome-changing ones.

Only outcome-changing mutants are scored (the others are counted): whether a verifier may pass a
mutant that reaches a gold outcome is not what the mutation score measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from envs.adversarial.mutants import domain_operators, mutants_of
from envs.adversarial.operator import Operator
from envs.adversarial.parallel import Progress, per_task
from envs.adversarial.report import MutantResult, MutationReport, summarize_mutations
from envs.adversarial.targets import changes_outcome, family, gold_views, score_all, verifier_names
from envs.domain import DOMAINS
from envs.env import replay
from schemas.tasks import Task


@dataclass
class TaskMutations:
    """What one task's mutants gave."""

    mutants: int = 0
    outcome_changing: int = 0
    rows: list[MutantResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def mutate_task(
    task: Task, *, verifiers: Sequence[str], operators: Sequence[Operator] | None = None, seed: int = 0
) -> TaskMutations:
    """Replay each mutant of `task` and judge the outcome-changing ones with every verifier."""
    out = TaskMutations()
    try:
        domain = DOMAINS.get(task.domain)
        golds = gold_views(task, domain, seed=seed)
        mutants = mutants_of(
            task, domain, operators if operators is not None else domain_operators(task.domain)
        )
    except Exception as exc:  # a task that cannot be mutated is reported, not fatal
        out.errors.append(f"{task.task_id}: {type(exc).__name__}: {exc}")
        return out
    out.mutants = len(mutants)
    kind = family(task)
    for mutant in mutants:
        trajectory = replay(domain, task, mutant.calls, seed=seed)
        if not changes_outcome(domain.outcome_view(trajectory.final_world), golds):
            continue
        out.outcome_changing += 1
        for name, verdict in score_all(task, trajectory, verifiers).items():
            if isinstance(verdict, str):
                out.errors.append(f"{task.task_id} [{name}] {mutant.operator}: {verdict}")
                continue
            out.rows.append(
                MutantResult(
                    task_id=task.task_id,
                    family=kind,
                    verifier=name,
                    operator=mutant.operator,
                    description=mutant.description,
                    source=mutant.source,
                    score=verdict.score,
                    rejected=not verdict.passed,
                    failed_checks=tuple(c.name for c in verdict.checks if not c.passed),
                )
            )
    return out


def mutation_report(
    tasks: Sequence[Task],
    verifiers: Sequence[str] | None = None,
    *,
    operators: Sequence[Operator] | None = None,
    seed: int = 0,
    workers: int = 1,
    progress: Progress | None = None,
) -> MutationReport:
    """Mutation scores per verifier and task family, with every surviving mutant.

    `verifiers` defaults to the verifiers the tasks name; each task is retargeted to each verifier
    (`targets.retarget`). `operators` defaults to the generic ones plus the task's domain's.
    """
    names = verifier_names(tasks, verifiers)
    job = partial(mutate_task, verifiers=names, operators=operators, seed=seed)
    results = per_task(job, tasks, workers=workers, progress=progress)
    return summarize_mutations(
        [row for r in results for row in r.rows],
        verifiers=names,
        tasks=len(tasks),
        mutants=sum(r.mutants for r in results),
        outcome_changing=sum(r.outcome_changing for r in results),
        errors=[e for r in results for e in r.errors],
    )
