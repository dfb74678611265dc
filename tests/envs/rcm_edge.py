"""The rcm edge kinds as their tests draw them: a kind's generated tasks, a task's variant, a score
of some calls, and the checks every pair of one-draw twins must pass."""

from __future__ import annotations

from collections.abc import Sequence

from envs.adversarial.twins import twin_sets
from envs.domain import DOMAINS
from envs.env import replay
from envs.rcm.cases_edge import EDGE
from envs.rcm.tasks import draw, to_task
from envs.rcm.twins import twin_problems
from envs.validate import validate_task
from envs.verifiers.base import VERIFIERS
from schemas.tasks import Task
from schemas.tools import ToolCall


def edge_tasks(kind: str, count: int) -> list[Task]:
    """The first `count` tasks of the edge kind `kind` (seed 0), as `generate_edge` makes them."""
    build, category, payers = EDGE[kind]
    return [
        to_task(
            draw("rcm-edge", 0, kind, i, build, payers),
            task_id=f"rcm-edge-{kind}-{i:03d}",
            seed=0,
            distribution="edge",
            category=category,
        )
        for i in range(count)
    ]


def variant(task: Task) -> str:
    """The task's variant (its `variant:` tag)."""
    return next(t for t in task.tags if t.startswith("variant:")).removeprefix("variant:")


def score(task: Task, calls: Sequence[ToolCall]) -> float:
    """The task's verifier's score of `calls` replayed on it."""
    run = replay(DOMAINS.get("rcm"), task, tuple(calls))
    return VERIFIERS.get(task.verifier.verifier).score(task, run).score


def twin_pairs(twins: Sequence[Task], variants: set[str]) -> list[list[Task]]:
    """The twin sets of `twins`, after checking them: no twin problem, every task valid, the same
    work item within a pair, and one task of each of the two `variants` in each."""
    assert twin_problems(twins) == []
    for task in twins:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
    pairs = list(twin_sets(twins).values())
    for first, second in pairs:
        assert first.work_item == second.work_item
        assert {variant(first), variant(second)} == variants
    return pairs


def blind_earnings(tasks: Sequence[Task]) -> dict[str, float]:
    """Each blind desk of the rcm kit (the fixed desks and every blind move) with the rcm.v2 reward
    it earns over `tasks`; every episode must run without error."""
    from envs.adversarial.blind import blind_kit
    from envs.rollout import play

    kit = blind_kit("rcm")
    assert kit is not None
    rcm, verifier = DOMAINS.get("rcm"), VERIFIERS.get("rcm.v2")
    earned = {}
    for policy in (*kit.fixed, *kit.moves.values()):
        total = 0.0
        for task in tasks:
            played = play(task, policy, domain=rcm)
            assert played.error is None
            total += verifier.score(task, played.trajectory).score
        earned[policy.ref.model] = total
    return earned
