"""Dated payer rules in generated tasks: a claim is handled by the rule in effect on its date of
service, and a bulletin published while a queue is worked changes the handling of the claims dated
after it, not of those before."""

from __future__ import annotations

from functools import cache

from envs.domain import DOMAINS
from envs.env import replay
from envs.rcm.faults import FAULTS_KEY
from envs.rcm.intents import WRITES
from envs.validate import validate_task
from envs.verifiers.base import VERIFIERS
from schemas.tasks import Task
from schemas.tools import ToolCall, ToolOutcome
from tests.envs.rcm_edge import edge_tasks


@cache
def family(kind: str) -> tuple[Task, ...]:
    return tuple(edge_tasks(kind, 8))


def score(task: Task, calls: tuple[ToolCall, ...]) -> float:
    return VERIFIERS.get("rcm.v2").score(task, replay(DOMAINS.get("rcm"), task, calls)).score


def test_both_families_validate_and_the_reference_passes_them() -> None:
    for kind in ("rule_change_dated", "rule_change_midqueue"):
        for task in family(kind):
            assert validate_task(task).problems == (), task.task_id
            assert score(task, task.gold_solution) == 1.0, task.task_id


def test_claims_fall_on_both_sides_of_the_effective_date() -> None:
    tags = {tag for task in family("rule_change_dated") for tag in task.tags}
    assert {"dated:before", "dated:after", "dated:retro", "dated:appeal"} <= tags


def test_a_claim_before_the_change_handled_by_the_current_rule_fails() -> None:
    # Before the change the old retro-authorization window is open: writing the claim off (what
    # the rule in effect today says) loses money the payer would pay.
    before = [t for t in family("rule_change_dated") if {"dated:retro", "dated:before"} <= set(t.tags)]
    assert before
    for task in before:
        claim_id = str(task.work_item.payload["claim_id"])
        amount = float(task.work_item.payload["billed_amount"])
        reads = tuple(c for c in task.gold_solution if c.name not in WRITES)
        write_off = ToolCall(
            call_id="w",
            name="post_write_off",
            arguments={"claim_id": claim_id, "amount": amount, "reason_code": "no_authorization"},
        )
        assert score(task, (*reads, write_off)) < 1.0, task.task_id


def test_the_payer_refuses_an_appeal_after_its_window_under_the_new_rule() -> None:
    after = [t for t in family("rule_change_dated") if {"dated:appeal", "dated:after"} <= set(t.tags)]
    assert after
    for task in after:
        claim_id = str(task.work_item.payload["claim_id"])
        appeal = ToolCall(
            call_id="a",
            name="submit_appeal",
            arguments={
                "claim_id": claim_id,
                "basis": "medical_necessity",
                "reason": "see records",
                "attachment_document_ids": [],
            },
        )
        trajectory = replay(DOMAINS.get("rcm"), task, (appeal,))
        result = trajectory.turns[0].result
        assert result.error is not None and result.error.details["code"] == "appeal_window_closed"


def test_the_bulletin_lands_after_the_first_write_and_the_reference_sees_it_before_the_next_claim() -> None:
    for task in family("rule_change_midqueue"):
        plan = task.initial_world[FAULTS_KEY]["bulletins"]
        first_write = next(i for i, c in enumerate(task.gold_solution) if c.name in WRITES)
        assert plan[0]["after_calls"] == first_write + 1
        trajectory = replay(DOMAINS.get("rcm"), task, task.gold_solution)
        seen = [
            len((t.result.result or {})["bulletins"])
            for t in trajectory.turns
            if t.call.name == "get_payer_bulletins" and t.result.outcome is ToolOutcome.OK
        ]
        assert seen[0] == 1 and seen[-1] == 2, task.task_id  # the older bulletin, then the new one
        writes = [i for i, t in enumerate(trajectory.turns) if t.call.name in WRITES]
        checks = [i for i, t in enumerate(trajectory.turns) if t.call.name == "get_payer_bulletins"]
        assert any(writes[0] < i < writes[1] for i in checks), task.task_id


def test_in_the_queue_the_claim_after_the_change_is_written_off_and_the_one_before_appealed() -> None:
    for task in family("rule_change_midqueue"):
        queue = task.verifier.params["queue"]
        due = next(row["claim_id"] for row in queue if row["deadline"])
        writes = {(c.name, c.arguments["claim_id"]) for c in task.gold_solution if c.name in WRITES}
        assert ("submit_appeal", due) in writes
        cut = [
            c
            for c in task.gold_solution
            if c.name == "post_write_off" and c.arguments.get("reason_code") == "not_medically_necessary"
        ] or [c for c in task.gold_solution if c.name == "escalate_to_human"]
        assert cut, task.task_id


def test_appealing_the_claim_dated_after_the_change_is_refused_even_before_the_bulletin() -> None:
    task = family("rule_change_midqueue")[0]
    cut = next(
        c.arguments["claim_id"]
        for c in task.gold_solution
        if c.name in ("post_write_off", "escalate_to_human")
        and c.arguments.get("reason_code", "not_medically_necessary") == "not_medically_necessary"
    )
    appeal = ToolCall(
        call_id="a",
        name="submit_appeal",
        arguments={
            "claim_id": cut,
            "basis": "medical_necessity",
            "reason": "see records",
            "attachment_document_ids": [],
        },
    )
    result = replay(DOMAINS.get("rcm"), task, (appeal,)).turns[0].result
    assert result.error is not None and result.error.details["code"] == "appeal_window_closed"
