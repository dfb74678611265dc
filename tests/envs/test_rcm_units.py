"""Cut units (`envs.rcm.units`): CO-151 with a units remark pays only the units the payer finds
supported; the visit note's minutes of timed treatment decide whether the cut units are appealed
with the note or written off, and nothing else on view tells the two apart."""

from __future__ import annotations

import pytest

from envs.rcm.twins import units_twins
from envs.rcm.units import timed_minutes, units_for
from envs.rcm.x12check import remittance_problems
from envs.validate import validate_task
from schemas.tasks import Task
from schemas.tools import ToolCall
from tests.envs.rcm_edge import blind_earnings, edge_tasks, score, twin_pairs, variant

KIND = "units_reduced"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return edge_tasks(KIND, 10)


def _cut(task: Task) -> float:
    remit = next(iter(task.initial_world["remittances"].values()))
    return round(sum(a["amount"] for line in remit["lines"] for a in line["adjustments"]), 2)


def test_the_8_minute_rule_counts_the_units_a_note_supports() -> None:
    assert [units_for(m) for m in (7, 8, 22, 23, 37, 38, 52, 53, 67, 68)] == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5]
    assert timed_minutes("Timed treatment: x (97110), 41 minutes of direct one-on-one time.") == 41
    assert timed_minutes("x (97110) as planned. Total timed treatment time: 23 minutes.") == 23
    assert timed_minutes("Services: therapeutic exercise, 15 minutes. Time was not recorded.") is None


def test_every_reading_is_drawn_and_every_gold_follows_the_note(tasks: list[Task]) -> None:
    assert {variant(t) for t in tasks} == {"time_supports_units", "time_supports_fewer", "no_time"}
    for task in tasks:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
        assert remittance_problems(task) == []
        assert score(task, task.gold_solution) == 1.0
        names = [c.name for c in task.gold_solution]
        assert "read_document" in names
        last = task.gold_solution[-1]
        if variant(task) == "time_supports_units":
            assert last.name == "submit_appeal" and last.arguments["basis"] == "coding"
            assert last.arguments["attachment_document_ids"]
        else:
            assert last.name in ("post_write_off", "escalate_to_human")
            assert float(last.arguments["amount"]) == _cut(task)
            assert "submit_appeal" not in names


def _appeal(task: Task) -> ToolCall:
    doc = next(iter(task.initial_world["documents"]))
    return ToolCall(
        call_id="appeal",
        name="submit_appeal",
        arguments={
            "claim_id": task.work_item.payload["claim_id"],
            "basis": "coding",
            "reason": f"Claim {task.work_item.payload['claim_id']} cut CO-151: the note supports the units.",
            "attachment_document_ids": [doc],
        },
    )


def _write_off(task: Task) -> ToolCall:
    return ToolCall(
        call_id="write_off",
        name="post_write_off",
        arguments={
            "claim_id": task.work_item.payload["claim_id"],
            "amount": _cut(task),
            "reason_code": "administrative",
            "note": "CO-151: units not supported",
        },
    )


def test_the_other_reading_of_the_note_scores_nothing(tasks: list[Task]) -> None:
    for task in tasks:
        reads = tuple(c for c in task.gold_solution if c.name.startswith(("get_", "read_")))
        wrong = _write_off(task) if variant(task) == "time_supports_units" else _appeal(task)
        assert score(task, (*reads, wrong)) == 0.0, task.task_id


def test_the_right_move_without_reading_the_note_falls_short(tasks: list[Task]) -> None:
    for task in tasks[:5]:
        unread = tuple(c for c in task.gold_solution if c.name != "read_document")
        assert score(task, unread) < 1.0, task.task_id


def test_no_blind_desk_earns_anything_on_cut_units(tasks: list[Task]) -> None:
    earned = blind_earnings(tasks)
    assert {name: total for name, total in earned.items() if total > 0} == {}


def test_cut_units_twins_look_the_same_and_call_for_different_moves() -> None:
    twins = units_twins(0, 3)
    pairs = twin_pairs(twins, {"time_supports_units", "time_supports_fewer"})
    assert len(pairs) == 3
    for first, second in pairs:
        docs = [
            (first.initial_world["documents"][k], second.initial_world["documents"][k])
            for k in first.initial_world["documents"]
        ]
        changed = [(a, b) for a, b in docs if a != b]
        assert len(changed) == 1 and changed[0][0]["title"] == changed[0][1]["title"]
