"""Overpayments (`envs.rcm.overpayments`): a claim paid twice carries a credit balance; billing
refunds it, or leaves it to the payer's offset when the payer's letter says so; nothing is written
off and the claim is not closed."""

from __future__ import annotations

import pytest

from adapters.rcm import seed_world
from adapters.rcm.ledger import insurance_balance
from envs.adversarial.twins import twin_sets
from envs.domain import DOMAINS
from envs.env import replay
from envs.rcm.cases_edge import EDGE
from envs.rcm.overpayments import recovery
from envs.rcm.tasks import draw, to_task
from envs.rcm.twins import overpayment_twins, twin_problems
from envs.rcm.x12check import remittance_problems
from envs.validate import validate_task
from envs.verifiers.base import VERIFIERS
from schemas.tasks import Task
from schemas.tools import ToolCall

KIND = "paid_twice"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    build, category, payers = EDGE[KIND]
    return [
        to_task(
            draw("rcm-edge", 0, KIND, i, build, payers),
            task_id=f"rcm-edge-{KIND}-{i:03d}",
            seed=0,
            distribution="edge",
            category=category,
        )
        for i in range(8)
    ]


def _variant(task: Task) -> str:
    return next(t for t in task.tags if t.startswith("variant:")).removeprefix("variant:")


def _score(task: Task, calls: tuple[ToolCall, ...]) -> float:
    run = replay(DOMAINS.get("rcm"), task, calls)
    return VERIFIERS.get(task.verifier.verifier).score(task, run).score


def test_both_letters_are_drawn_and_every_gold_hands_the_credit_balance_to_billing(tasks: list[Task]) -> None:
    assert {_variant(t) for t in tasks} == {"offset", "refund_requested"}
    for task in tasks:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
        assert remittance_problems(task) == []
        last = task.gold_solution[-1]
        assert last.name == "escalate_to_human" and last.arguments["queue"] == "billing"
        assert float(last.arguments["amount"]) < 0
        wanted = "offset" if _variant(task) == "offset" else "refund"
        assert last.arguments["recommended_action"] == wanted


def test_the_other_letters_move_fails_and_so_does_the_right_one_unread(tasks: list[Task]) -> None:
    for task in tasks[:4]:
        gold = task.gold_solution
        last = gold[-1]
        other = "refund" if last.arguments["recommended_action"] == "offset" else "offset"
        swapped = last.model_copy(update={"arguments": {**last.arguments, "recommended_action": other}})
        assert _score(task, (*gold[:-1], swapped)) < 1.0
        unread = tuple(c for c in gold if c.name != "read_document")
        assert _score(task, unread) < 1.0


def test_nothing_of_a_credit_balance_can_be_written_off() -> None:
    world = seed_world()
    for claim_id, credit in (("CLM-1125", -105.0), ("CLM-1126", -150.0)):
        assert insurance_balance(world, world.claims[claim_id]) == credit


def test_the_letter_decides_offset_or_refund() -> None:
    world = seed_world()
    assert recovery(world.documents["DOC-1125"].text) == "offset"
    assert recovery(world.documents["DOC-1126"].text) == "refund"
    assert recovery("Remittance advice explanation for claim CLM-1.") is None


def test_overpayment_twins_look_the_same_and_call_for_different_moves() -> None:
    twins = overpayment_twins(0, 3)
    assert len(twin_sets(twins)) == 3 and twin_problems(twins) == []
    for task in twins:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
    for first, second in twin_sets(twins).values():
        assert first.work_item == second.work_item
        assert {_variant(first), _variant(second)} == {"offset", "refund_requested"}
