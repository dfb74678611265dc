"""Overpayments (`envs.rcm.overpayments`): a claim paid twice carries a credit balance; billing
refunds it, or leaves it to the payer's offset when the payer's letter says so; nothing is written
off and the claim is not closed."""

from __future__ import annotations

import pytest

from adapters.rcm import seed_world
from adapters.rcm.ledger import insurance_balance
from envs.rcm.overpayments import recovery
from envs.rcm.twins import overpayment_twins
from envs.rcm.x12check import remittance_problems
from envs.validate import validate_task
from schemas.tasks import Task
from tests.envs.rcm_edge import edge_tasks, score, twin_pairs, variant

KIND = "paid_twice"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return edge_tasks(KIND, 8)


def test_both_letters_are_drawn_and_every_gold_hands_the_credit_balance_to_billing(tasks: list[Task]) -> None:
    assert {variant(t) for t in tasks} == {"offset", "refund_requested"}
    for task in tasks:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
        assert remittance_problems(task) == []
        last = task.gold_solution[-1]
        assert last.name == "escalate_to_human" and last.arguments["queue"] == "billing"
        assert float(last.arguments["amount"]) < 0
        wanted = "offset" if variant(task) == "offset" else "refund"
        assert last.arguments["recommended_action"] == wanted


def test_the_other_letters_move_fails_and_so_does_the_right_one_unread(tasks: list[Task]) -> None:
    for task in tasks[:4]:
        gold = task.gold_solution
        last = gold[-1]
        other = "refund" if last.arguments["recommended_action"] == "offset" else "offset"
        swapped = last.model_copy(update={"arguments": {**last.arguments, "recommended_action": other}})
        assert score(task, (*gold[:-1], swapped)) < 1.0
        unread = tuple(c for c in gold if c.name != "read_document")
        assert score(task, unread) < 1.0


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
    assert len(twin_pairs(twins, {"offset", "refund_requested"})) == 3
