"""The rcm mutation operators make the mistakes they claim, on a real task's world."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from envs.adversarial.mutants import write_tools
from envs.adversarial.mutation import mutation_report
from envs.adversarial.operator import Apply, MutationContext
from envs.rcm.domain import DOMAIN
from envs.rcm.mutants import (
    MADE_UP_CLAIM,
    QUEUES,
    close_while_pending,
    merged_postings,
    missing_attachment,
    patient_billed_on_co,
    split_posting,
    wrong_amount,
    wrong_claim,
    wrong_code,
    wrong_payer,
    wrong_queue,
)
from envs.rcm.tasks import generate_base, generate_edge
from schemas.tasks import Task
from schemas.tools import ToolCall
from tests.envs.helpers import call


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    """One base task per CARC row and one edge task per kind."""
    return generate_base(seed=0, per_carc=1) + generate_edge(seed=0, per_kind=1)


@pytest.fixture(scope="module")
def task(tasks: list[Task]) -> Task:
    """A single-claim task."""
    return next(t for t in tasks if len(t.initial_world["claims"]) == 1)


def _run(apply: Apply, task: Task, *calls: ToolCall) -> list[tuple[str, tuple[ToolCall, ...]]]:
    ctx = MutationContext(task=task, writes=write_tools(DOMAIN))
    found: Iterator[tuple[str, tuple[ToolCall, ...]]] = apply(ctx, tuple(calls))
    return list(found)


def _claim(task: Task) -> str:
    return task.work_item.item_id


def test_wrong_code_mistypes_the_auth_number_and_also_drops_the_correction(task: Task) -> None:
    sent = call("submit_replacement_claim", claim_id=_claim(task), original_claim_control_number="X1",
                corrections={"prior_auth_number": "PA108903"})  # fmt: skip
    mutants = [calls[0].arguments["corrections"] for _, calls in _run(wrong_code, task, sent)]
    assert mutants == [{"prior_auth_number": "PA108904"}, {}]


def test_wrong_code_swaps_laterality_and_the_telehealth_place_of_service(task: Task) -> None:
    lines = [{"line_number": 1, "modifiers": ["LT"], "place_of_service": "10"}]
    sent = call("submit_replacement_claim", claim_id=_claim(task), original_claim_control_number="X1",
                corrections={"lines": lines})  # fmt: skip
    changed = [calls[0].arguments["corrections"].get("lines") for _, calls in _run(wrong_code, task, sent)]
    assert [{"line_number": 1, "modifiers": ["RT"], "place_of_service": "10"}] in changed
    assert [{"line_number": 1, "modifiers": ["LT"], "place_of_service": "02"}] in changed
    assert sent.arguments["corrections"]["lines"] == lines  # the gold call is left untouched


def test_wrong_code_swaps_the_reason_of_a_write_off_and_the_basis_of_an_appeal(task: Task) -> None:
    off = call("post_write_off", claim_id=_claim(task), amount=10.0, reason_code="contractual")
    appeal = call("submit_appeal", claim_id=_claim(task), basis="timely_filing", reason="r" * 20,
                  attachment_document_ids=[])  # fmt: skip
    assert _run(wrong_code, task, off)[0][1][0].arguments["reason_code"] == "administrative"
    assert _run(wrong_code, task, appeal)[0][1][0].arguments["basis"] == "medical_necessity"


def test_wrong_amount_posts_ten_percent_short_and_over(task: Task) -> None:
    off = call("post_write_off", claim_id=_claim(task), amount=200.0, reason_code="contractual")
    assert [calls[0].arguments["amount"] for _, calls in _run(wrong_amount, task, off)] == [180.0, 220.0]


def test_wrong_payer_bills_the_denying_payer_then_another(task: Task) -> None:
    denying = task.initial_world["claims"][_claim(task)]["payer_id"]
    other = next(p for p in sorted(task.initial_world["payers"]) if p != denying)
    target = next(p for p in sorted(task.initial_world["payers"]) if p not in (denying, other))
    bill = call(
        "bill_other_payer", claim_id=_claim(task), payer_id=target, member_id="M1", payer_sequence="primary"
    )
    payers = [calls[0].arguments["payer_id"] for _, calls in _run(wrong_payer, task, bill)]
    assert payers[:2] == [denying, other]
    sequences = [calls[0].arguments["payer_sequence"] for _, calls in _run(wrong_payer, task, bill)]
    assert "secondary" in sequences


def test_wrong_claim_uses_another_claim_of_the_world_else_a_made_up_one(
    tasks: list[Task], task: Task
) -> None:
    off = call("post_write_off", claim_id=_claim(task), amount=10.0, reason_code="contractual")
    assert _run(wrong_claim, task, off)[0][1][0].arguments["claim_id"] == MADE_UP_CLAIM
    twin = next(t for t in tasks if len(t.initial_world["claims"]) > 1)
    off = call("post_write_off", claim_id=_claim(twin), amount=10.0, reason_code="contractual")
    other = _run(wrong_claim, twin, off)[0][1][0].arguments["claim_id"]
    assert other in twin.initial_world["claims"] and other != _claim(twin)


def test_wrong_queue_tries_every_other_queue(task: Task) -> None:
    esc = call(
        "escalate_to_human",
        claim_id=_claim(task),
        queue="billing",
        recommended_action="review",
        reason="r" * 20,
    )
    queues = [calls[0].arguments["queue"] for _, calls in _run(wrong_queue, task, esc)]
    assert sorted(queues) == sorted(q for q in QUEUES if q != "billing")


def test_missing_attachment_drops_each_document_then_all(task: Task) -> None:
    appeal = call("submit_appeal", claim_id=_claim(task), basis="medical_necessity", reason="r" * 20,
                  attachment_document_ids=["D1", "D2"])  # fmt: skip
    kept = [
        calls[0].arguments["attachment_document_ids"] for _, calls in _run(missing_attachment, task, appeal)
    ]
    assert kept == [["D2"], ["D1"], []]


def test_patient_billed_on_co_turns_the_write_off_into_a_patient_transfer(task: Task) -> None:
    off = call("post_write_off", claim_id=_claim(task), amount=45.5, reason_code="contractual")
    [(_, (moved,))] = _run(patient_billed_on_co, task, off)
    assert moved.name == "transfer_to_patient_responsibility" and moved.arguments["amount"] == 45.5


def test_split_posting_bills_part_to_the_patient_or_posts_parts_that_do_not_sum(task: Task) -> None:
    off = call("post_write_off", claim_id=_claim(task), amount=100.0, reason_code="contractual")
    (_, to_patient), (_, short) = _run(split_posting, task, off)
    assert [(c.name, c.arguments["amount"]) for c in to_patient] == [
        ("post_write_off", 50.0),
        ("transfer_to_patient_responsibility", 50.0),
    ]
    assert [c.name for c in short] == ["post_write_off"] * 2
    assert sum(c.arguments["amount"] for c in short) != pytest.approx(100.0)


def test_merged_postings_merge_a_write_off_and_a_transfer_on_the_same_claim(task: Task) -> None:
    read = call("get_claim", "r", claim_id=_claim(task))
    move = call(
        "transfer_to_patient_responsibility", "t", claim_id=_claim(task), amount=20.0, reason="coinsurance"
    )
    off = call("post_write_off", "w", claim_id=_claim(task), amount=30.0, reason_code="contractual")
    (_, one_off), (_, one_move) = _run(merged_postings, task, read, move, off)
    assert [(c.name, c.arguments.get("amount")) for c in one_off] == [
        ("get_claim", None),
        ("post_write_off", 50.0),
    ]
    assert [c.name for c in one_move] == ["get_claim", "transfer_to_patient_responsibility"]


def test_close_while_pending_closes_the_claim_after_its_appeal(task: Task) -> None:
    appeal = call("submit_appeal", claim_id=_claim(task), basis="medical_necessity", reason="r" * 20,
                  attachment_document_ids=[])  # fmt: skip
    [(_, calls)] = _run(close_while_pending, task, appeal)
    assert [c.name for c in calls] == ["submit_appeal", "close_claim"]


def test_the_rcm_mutation_run_judges_every_outcome_changing_mutant_with_each_verifier(
    tasks: list[Task],
) -> None:
    sample = tasks[::4]
    report = mutation_report(sample, ["rcm.v1", "rcm.v2"])
    assert not report.errors and report.outcome_changing > 0
    for verifier in report.verifiers:
        assert verifier.overall.outcome_changing == report.outcome_changing
        assert sum(r.outcome_changing for r in verifier.by_family) == report.outcome_changing
    operators = {r.name for r in report.verifiers[0].by_operator}
    assert {"drop_step", "wrong_claim", "wrong_amount"} <= operators
