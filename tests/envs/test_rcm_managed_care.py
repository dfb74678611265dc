"""A managed-care plan (`envs.rcm.managed_care`): Medicare's CO-24 says the patient is in a
managed-care plan; eligibility decides whether that plan (Medicare Advantage) is billed as primary
or, the plan having ended before the service, a human asks Medicare to reopen the claim."""

from __future__ import annotations

import pytest

from envs.rcm.twins import managed_care_twins
from envs.rcm.x12check import remittance_problems
from envs.validate import validate_task
from schemas.tasks import Task
from schemas.tools import ToolCall
from tests.envs.rcm_edge import blind_earnings, edge_tasks, score, twin_pairs, variant

KIND = "managed_care_plan"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return edge_tasks(KIND, 8)


def _plan(task: Task) -> dict[str, str]:
    """The patient's Medicare Advantage coverage."""
    claim = task.initial_world["claims"][task.work_item.payload["claim_id"]]
    return next(
        c
        for c in task.initial_world["coverages"].values()
        if c["patient_id"] == claim["patient_id"] and c["payer_id"] != "MCR"
    )


def test_both_answers_of_eligibility_are_drawn_and_every_gold_follows_it(tasks: list[Task]) -> None:
    assert {variant(t) for t in tasks} == {"enrolled", "disenrolled"}
    for task in tasks:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
        assert remittance_problems(task) == []
        assert score(task, task.gold_solution) == 1.0
        last = task.gold_solution[-1]
        assert "check_eligibility" in [c.name for c in task.gold_solution]
        if variant(task) == "enrolled":
            assert last.name == "bill_other_payer"
            assert last.arguments["payer_id"] == _plan(task)["payer_id"]
            assert last.arguments["payer_sequence"] == "primary"
        else:
            assert last.name == "escalate_to_human" and last.arguments["recommended_action"] == "review"


def _bill_plan(task: Task) -> ToolCall:
    plan = _plan(task)
    return ToolCall(
        call_id="bill",
        name="bill_other_payer",
        arguments={
            "claim_id": task.work_item.payload["claim_id"],
            "payer_id": plan["payer_id"],
            "member_id": plan["member_id"],
            "payer_sequence": "primary",
        },
    )


def test_billing_a_lapsed_plan_or_rebilling_medicare_scores_nothing(tasks: list[Task]) -> None:
    for task in tasks:
        reads = tuple(c for c in task.gold_solution if c.name.startswith(("get_", "check_")))
        claim_id = task.work_item.payload["claim_id"]
        rebill = ToolCall(
            call_id="rebill",
            name="submit_replacement_claim",
            arguments={
                "claim_id": claim_id,
                "original_claim_control_number": "X",
                "corrections": {},
                "note": "rebilled to Medicare",
            },
        )
        assert score(task, (*reads, rebill)) == 0.0, task.task_id
        if variant(task) == "disenrolled":
            assert score(task, (*reads, _bill_plan(task))) == 0.0, task.task_id


def test_no_blind_desk_earns_anything_on_a_managed_care_denial(tasks: list[Task]) -> None:
    earned = blind_earnings(tasks)
    assert {name: total for name, total in earned.items() if total > 0} == {}


def test_managed_care_twins_look_the_same_and_call_for_different_moves() -> None:
    twins = managed_care_twins(0, 3)
    assert len(twin_pairs(twins, {"enrolled", "disenrolled"})) == 3
