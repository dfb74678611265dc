"""A negotiated discount (`envs.rcm.discounts`): CO-131 is a contractual reduction when it leaves the
contracted rate on the payer's fee schedule, posted as contractual whatever its size (no supervisor);
one that takes the allowed amount below the contract is not contractual: the shortfall is appealed."""

from __future__ import annotations

import pytest

from adapters.rcm.ledger import CONTRACTUAL_CARCS
from envs.rcm.twins import discount_twins
from envs.rcm.x12check import remittance_problems
from envs.validate import validate_task
from schemas.tasks import Task
from schemas.tools import ToolCall
from tests.envs.rcm_edge import blind_earnings, edge_tasks, score, twin_pairs, variant

KIND = "negotiated_discount"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return edge_tasks(KIND, 8)


def _discount(task: Task) -> float:
    remit = next(iter(task.initial_world["remittances"].values()))
    return round(sum(a["amount"] for line in remit["lines"] for a in line["adjustments"]), 2)


def test_a_negotiated_discount_is_a_contractual_code() -> None:
    assert "131" in CONTRACTUAL_CARCS


def test_both_contracts_are_drawn_and_every_gold_follows_the_fee_schedule(tasks: list[Task]) -> None:
    assert {variant(t) for t in tasks} == {"at_contract", "below_contract"}
    limit = 500.0
    for task in tasks:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
        assert remittance_problems(task) == []
        assert score(task, task.gold_solution) == 1.0
        names = [c.name for c in task.gold_solution]
        assert "get_payer_rules" in names and "escalate_to_human" not in names
        if variant(task) == "at_contract":
            (posted,) = [c for c in task.gold_solution if c.name == "post_write_off"]
            assert posted.arguments["reason_code"] == "contractual"
            assert float(posted.arguments["amount"]) == _discount(task)
        else:
            appeal = task.gold_solution[-1]
            assert appeal.name == "submit_appeal" and appeal.arguments["basis"] == "underpayment"
    assert any(_discount(t) > limit for t in tasks if variant(t) == "at_contract")


def _write_off_all(task: Task) -> ToolCall:
    return ToolCall(
        call_id="write_off",
        name="post_write_off",
        arguments={
            "claim_id": task.work_item.payload["claim_id"],
            "amount": _discount(task),
            "reason_code": "contractual",
            "note": "CO-131 negotiated discount, contractual adjustment per the fee schedule",
        },
    )


def test_writing_off_a_discount_below_the_contract_scores_nothing(tasks: list[Task]) -> None:
    for task in tasks:
        if variant(task) != "below_contract":
            continue
        reads = tuple(c for c in task.gold_solution if c.name.startswith("get_"))
        assert score(task, (*reads, _write_off_all(task))) == 0.0, task.task_id


def test_a_supervisor_for_a_discount_at_the_contract_is_not_the_work(tasks: list[Task]) -> None:
    for task in tasks:
        if variant(task) != "at_contract" or _discount(task) <= 500.0:
            continue
        reads = tuple(c for c in task.gold_solution if c.name.startswith("get_"))
        ask = ToolCall(
            call_id="ask",
            name="escalate_to_human",
            arguments={
                "claim_id": task.work_item.payload["claim_id"],
                "queue": "supervisor",
                "recommended_action": "write_off",
                "amount": _discount(task),
                "reason": "CO-131 negotiated discount above the write-off limit: please approve",
            },
        )
        assert score(task, (*reads, ask)) == 0.0, task.task_id


def test_no_blind_desk_earns_anything_on_a_negotiated_discount(tasks: list[Task]) -> None:
    earned = blind_earnings(tasks)
    assert {name: total for name, total in earned.items() if total > 0} == {}


def test_discount_twins_look_the_same_and_call_for_different_moves() -> None:
    twins = discount_twins(0, 3)
    assert len(twin_pairs(twins, {"at_contract", "below_contract"})) == 3
