"""Reversals and take-backs (`envs.rcm.reversals`): one 835 reverses a posted payment and pays it
again for less; the net change is posted when the contract supports it, disputed when it does not,
and only the fee schedule tells the two apart."""

from __future__ import annotations

import pytest

from adapters.rcm import World
from adapters.rcm.x12 import parse_835
from envs.domain import DOMAINS
from envs.env import replay
from envs.rcm.tasks import work_item_for
from envs.rcm.twins import take_back_twins
from envs.rcm.x12check import remittance_problems, remittance_text
from envs.validate import validate_task
from schemas.tasks import Task
from schemas.tools import ToolCall
from tests.envs.rcm_edge import edge_tasks, score, twin_pairs, variant

KIND = "reversal_take_back"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return edge_tasks(KIND, 8)


def _call(n: int, name: str, **arguments: object) -> ToolCall:
    return ToolCall(call_id=f"c{n}", name=name, arguments=dict(arguments))


def test_both_variants_are_drawn_and_every_gold_validates(tasks: list[Task]) -> None:
    assert {variant(t) for t in tasks} == {"take_back_supported", "take_back_unsupported"}
    for task in tasks:
        found = validate_task(task)
        assert found.ok, (task.task_id, found.problems)
        assert remittance_problems(task) == []


def test_the_835_reverses_and_corrects_on_one_transaction_with_a_forwarding_balance(
    tasks: list[Task],
) -> None:
    for task in tasks:
        world = World.from_snapshot(task.initial_world)
        text = remittance_text(world)
        assert text is not None
        assert text.count("ST*835*") == 2  # the first payment, then the reversal with its correction
        first, reversal, corrected = world.remittances_for(task.work_item.item_id)
        assert reversal.claim_status_code == "22" and reversal.paid_amount == -first.paid_amount
        assert reversal.trace_number == corrected.trace_number is not None
        (fb,) = corrected.provider_adjustments
        assert fb.reason_code == "FB" and fb.amount == round(corrected.paid_amount - first.paid_amount, 2) < 0
        assert "BPR*H*0*C*NON" in text
        parsed, _ = parse_835(text)
        assert parsed == [first, reversal, corrected]


def test_the_visible_facts_are_the_same_in_both_variants(tasks: list[Task]) -> None:
    """Work item codes, the 835's shape and the document list do not tell the variants apart."""

    def signature(task: Task) -> tuple[object, ...]:
        world = World.from_snapshot(task.initial_world)
        claim_id = task.work_item.item_id
        shape = tuple(
            (r.claim_status_code, r.payment_method, tuple(p.reason_code for p in r.provider_adjustments))
            for r in world.remittances_for(claim_id)
        )
        documents = sorted(d.kind for d in world.documents.values() if d.claim_id == claim_id)
        return (tuple(work_item_for(world, claim_id).payload["adjustment_codes"]), shape, tuple(documents))

    by_variant = {variant(t): signature(t) for t in tasks}
    assert len(set(by_variant.values())) == 1
    golds = {variant(t): t.gold_solution[-1].name for t in tasks}
    assert golds == {"take_back_supported": "post_write_off", "take_back_unsupported": "submit_appeal"}


def test_posting_the_whole_corrected_co45_is_refused_the_first_posting_counts(tasks: list[Task]) -> None:
    task = next(t for t in tasks if variant(t) == "take_back_supported")
    world = World.from_snapshot(task.initial_world)
    claim_id = task.work_item.item_id
    corrected = world.remittances_for(claim_id)[-1]
    whole = sum(a.amount for line in corrected.lines for a in line.adjustments)
    calls = [
        _call(1, "get_remittance", claim_id=claim_id),
        _call(2, "get_payer_rules", payer_id=corrected.payer_id),
        _call(3, "post_write_off", claim_id=claim_id, amount=whole, reason_code="contractual"),
    ]
    run = replay(DOMAINS.get("rcm"), task, tuple(calls))
    assert run.turns[-1].result.error is not None
    assert run.turns[-1].result.error.details["code"] == "amount_exceeds_balance"
    assert score(task, calls) < 1.0


def test_each_variants_right_move_fails_the_other_and_without_the_fee_schedule_pays_less(
    tasks: list[Task],
) -> None:
    supported = next(t for t in tasks if variant(t) == "take_back_supported")
    disputed = next(t for t in tasks if variant(t) == "take_back_unsupported")
    for task, other in ((supported, disputed), (disputed, supported)):
        gold = list(task.gold_solution)
        assert score(task, gold) == 1.0
        unread = [c for c in gold if c.name != "get_payer_rules"]
        assert score(task, unread) < 1.0  # the right move, but the deciding read never made
        move = other.gold_solution[-1]
        swapped = [*gold[:-1], move.model_copy(update={"arguments": _for(move, task)})]
        assert score(task, swapped) < 1.0


def _for(move: ToolCall, task: Task) -> dict[str, object]:
    """The other variant's decisive call, aimed at this task's claim (the net change as its amount)."""
    world = World.from_snapshot(task.initial_world)
    claim_id = task.work_item.item_id
    first, _, corrected = world.remittances_for(claim_id)
    arguments = {**move.arguments, "claim_id": claim_id}
    if move.name == "post_write_off":
        arguments["amount"] = round(first.paid_amount - corrected.paid_amount, 2)
    return arguments


def test_take_back_twins_look_the_same_validate_and_call_for_different_moves() -> None:
    twins = take_back_twins(0, 3)
    assert len(twin_pairs(twins, {"take_back_supported", "take_back_unsupported"})) == 3
    assert [t.compute_hash() for t in take_back_twins(0, 3)] == [t.compute_hash() for t in twins]


def test_the_twin_set_holds_the_recipes_and_the_take_back_pairs() -> None:
    from envs.rcm import DOMAIN

    built, _ = DOMAIN.task_sets["rcm-twins"]
    ids = [t.task_id for t in built(0, 1)]
    assert "rcm-twins-take_back-000-a" in ids and "rcm-twins-take_back-000-b" in ids
    assert any(i.startswith("rcm-twins-timely_limit_passed-") for i in ids)
