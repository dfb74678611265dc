"""Deliberately corrupted gold, to prove the gate stops an adapter that learned wrong work.

Each task's gold becomes one of its own mutants (`envs.adversarial.mutants`): the first, in the
order of `OPERATORS`, whose final world differs from every gold trajectory's, e.g. a contractual
write-off billed to the patient, an escalation to the wrong queue, or the decisive write left out.
"""

from __future__ import annotations

from envs.adversarial.mutants import domain_operators, mutants_of
from envs.adversarial.targets import changes_outcome, gold_views
from envs.domain import DOMAINS
from envs.env import replay
from schemas.tasks import Task

OPERATORS = ("patient_billed_on_co", "wrong_queue", "drop_step")
"""Mutation operators tried in order; their mistakes are made of values the task shows."""


def corrupted(task: Task) -> Task:
    """`task` with a wrong trajectory as its only gold (unchanged when no operator changes its outcome)."""
    domain = DOMAINS.get(task.domain)
    by_name = {op.name: op for op in domain_operators(task.domain)}
    golds = gold_views(task, domain)
    for name in OPERATORS:
        if name not in by_name:
            continue
        for mutant in mutants_of(task, domain, [by_name[name]]):
            if mutant.source != "gold":
                continue
            final = replay(domain, task, mutant.calls).final_world
            if changes_outcome(domain.outcome_view(final), golds):
                return task.model_copy(update={"gold_solution": mutant.calls, "alternative_solutions": ()})
    return task
