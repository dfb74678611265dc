"""A queue can hand one claim to a human and go on: the escalation of one claim of a work queue
ends nothing, in evaluation (the sim) and in production (the sandbox behind the live backend)
alike; a denial's escalation still ends its episode."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import pytest

from envs.domain import DOMAINS
from envs.rcm import generate_base
from envs.rcm.cases_edge import EDGE
from envs.rcm.tasks import draw, to_task
from envs.rollout import play, reference_policy
from envs.rollout.policy import PlanPolicy
from envs.script import Script, ScriptPlan
from envs.verifiers.base import VERIFIERS
from schemas import Task, ToolCall, WorkItem
from tests.engine.test_one_engine import Sandbox, _evaluation, _production, _serve, normalised


@cache
def hand_off_queues() -> tuple[Task, ...]:
    build, category, payers = EDGE["queue_hand_off"]
    return tuple(
        to_task(
            draw("rcm-edge", 0, "queue_hand_off", i, build, payers),
            task_id=f"rcm-edge-queue_hand_off-{i:03d}",
            seed=0,
            distribution="edge",
            category=category,
            extra_tags=("edge:queue_hand_off",),
        )
        for i in range(8)
    )


def _escalated(task: Task) -> list[str]:
    played = play(task, reference_policy("rcm"))
    return [
        str(t.call.arguments["claim_id"])
        for t in played.trajectory.turns
        if t.call.name == "escalate_to_human" and t.result.error is None
    ]


def test_the_reference_hands_off_one_claim_and_works_every_other_claim_of_the_queue() -> None:
    rules = DOMAINS.get("rcm").tool.rules
    for task in hand_off_queues():
        played = play(task, reference_policy("rcm"))
        claims = {c["claim_id"] for c in task.work_item.payload["claims"]}
        escalated = _escalated(task)
        assert len(escalated) == 1 and escalated[0] in claims, task.task_id
        worked = {
            t.call.arguments.get("claim_id")
            for t in played.trajectory.turns
            if t.call.name != rules.escalate_tool and t.call.name not in ("get_payer_rules",)
        }
        assert claims <= worked, task.task_id
        assert played.trajectory.end_reason == "agent_finished", task.task_id
        assert played.status == "completed", task.task_id
        assert VERIFIERS.get("rcm.v2").score(task, played.trajectory).score == 1.0, task.task_id


def test_an_urgent_hand_off_goes_first() -> None:
    urgent = [t for t in hand_off_queues() if "queue:hand_off:urgent" in t.tags]
    assert urgent
    for task in urgent:
        writes = [c for c in task.gold_solution if c.name in ("escalate_to_human", "submit_appeal", "post_write_off",
                  "submit_replacement_claim", "transfer_to_patient_responsibility", "close_claim")]  # fmt: skip
        assert writes[0].name == "escalate_to_human", task.task_id


def test_a_queue_worked_only_up_to_its_hand_off_fails() -> None:
    scorer = VERIFIERS.get("rcm.v2")
    for task in hand_off_queues():
        gold = task.gold_solution
        cut = next(i for i, c in enumerate(gold) if c.name == "escalate_to_human") + 1
        if cut == len(gold):
            continue
        played = play(task, _replaying(gold[:cut]))
        assert scorer.score(task, played.trajectory).score < 1.0, task.task_id


def _replaying(calls: tuple[ToolCall, ...]) -> PlanPolicy:
    """A policy that sends `calls` in order, whatever they answer, then finishes."""

    def script(item: WorkItem) -> Script:
        yield from calls

    return PlanPolicy("replay", ScriptPlan(script, "done"))


def test_a_denials_escalation_still_ends_its_episode() -> None:
    b7 = next(t for t in generate_base(seed=0, per_carc=1) if "carc:B7" in t.tags)
    played = play(b7, reference_policy("rcm"))
    assert played.trajectory.turns[-1].call.name == "escalate_to_human"
    assert played.trajectory.end_reason == "terminal_tool" and played.status == "escalated"


@pytest.fixture(scope="module")
def rcm_sandbox() -> Iterator[Sandbox]:
    yield from _serve("rcm")


@pytest.mark.integration
def test_production_hands_off_one_claim_of_a_queue_and_goes_on_as_evaluation_does(
    rcm_sandbox: Sandbox,
) -> None:
    for task in hand_off_queues()[:2]:
        evaluated, produced = _evaluation(task), _production(task, rcm_sandbox)
        assert normalised(produced) == normalised(evaluated), task.task_id
        assert produced[-1].data.model_dump()["status"] == "completed", task.task_id
        assert not any(e.type == "episode.escalated" for e in produced), task.task_id
