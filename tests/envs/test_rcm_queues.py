"""Work queues: several claims in one work item, whose deadlines decide the order they are worked in."""

from __future__ import annotations

from functools import cache

from envs.domain import DOMAINS
from envs.env import replay
from envs.rcm.intents import WRITES
from envs.rcm.queues import QUEUE_KIND
from envs.rcm.tasks import generate_queue
from envs.validate import validate_task
from envs.verifiers.base import VERIFIERS
from schemas.tasks import Task
from schemas.tools import ToolCall


@cache
def queues() -> tuple[Task, ...]:
    return tuple(generate_queue(0))


def listed(task: Task) -> list[str]:
    return [str(c["claim_id"]) for c in task.work_item.payload["claims"]]


def reordered(task: Task, order: list[str]) -> tuple[ToolCall, ...]:
    """The gold's reads, then its writes claim by claim in `order`."""
    reads = [c for c in task.gold_solution if c.name not in WRITES]
    writes = [c for c in task.gold_solution if c.name in WRITES]
    return (*reads, *sorted(writes, key=lambda c: order.index(str(c.arguments["claim_id"]))))


def score(task: Task, calls: tuple[ToolCall, ...]) -> tuple[float, dict[str, bool]]:
    verdict = VERIFIERS.get("rcm.v2").score(task, replay(DOMAINS.get("rcm"), task, calls))
    return verdict.score, {c.name: c.passed for c in verdict.checks}


def test_there_are_at_least_forty_queues_of_three_to_six_claims_and_every_one_validates() -> None:
    assert len(queues()) >= 40
    for task in queues():
        assert task.work_item.kind == QUEUE_KIND
        assert 3 <= len(listed(task)) <= 6
        assert validate_task(task).problems == (), task.task_id


def test_every_queue_lists_a_claim_with_a_later_deadline_before_the_most_urgent_one() -> None:
    for task in queues():
        deadlines = {row["claim_id"]: row["deadline"] or "9999" for row in task.verifier.params["queue"]}
        urgent = min(deadlines, key=deadlines.__getitem__)
        assert listed(task)[0] != urgent and deadlines[listed(task)[0]] > deadlines[urgent]


def test_the_same_work_in_the_listed_order_misses_a_deadline_and_earns_nothing() -> None:
    for task in queues()[:12]:
        got, checks = score(task, reordered(task, listed(task)))
        assert got == 0.0 and checks["outcome.rcm.deadline_order"] is False, task.task_id


def test_the_same_work_in_deadline_order_scores_one() -> None:
    for task in queues()[:12]:
        deadlines = {row["claim_id"]: row["deadline"] or "9999" for row in task.verifier.params["queue"]}
        order = sorted(listed(task), key=lambda c: (deadlines[c], listed(task).index(c)))
        got, checks = score(task, reordered(task, order))
        assert got == 1.0 and checks["outcome.rcm.deadline_order"], task.task_id


def test_a_write_on_one_claim_of_the_queue_does_not_satisfy_another_claims_spec() -> None:
    task = queues()[0]
    first = listed(task)[0]
    only_first = tuple(
        c for c in task.gold_solution if c.name not in WRITES or c.arguments.get("claim_id") == first
    )
    got, checks = score(task, only_first)
    assert got == 0.0
    assert any(name.startswith("outcome.") and not ok for name, ok in checks.items())
