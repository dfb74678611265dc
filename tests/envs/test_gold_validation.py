"""Gold replay validation: gold scores 1.0, doing nothing scores 0, problems are reported."""

from __future__ import annotations

from envs.validate import validate_task, validate_tasks
from schemas.tasks import Task
from tests.envs.helpers import call


def test_every_toy_task_validates(toy_tasks: list[Task]) -> None:
    results = validate_tasks(toy_tasks)
    assert all(r.ok for r in results), [r.problems for r in results if not r.ok]
    assert all(r.gold is not None and r.gold.score == 1.0 for r in results)
    assert all(r.noop is not None and r.noop.score == 0.0 for r in results)


def test_a_gold_solution_that_breaks_a_process_rule_is_rejected(refund_task: Task) -> None:
    # The outcome target is whatever the gold produces, so a gold solution can only fail on process:
    # here it never reads the ticket before refunding.
    broken = refund_task.model_copy(update={"gold_solution": refund_task.gold_solution[1:]})
    result = validate_task(broken)
    assert not result.ok
    (problem,) = result.problems
    assert "gold solution scores" in problem and "process.toy.read_before_write" in problem


def test_outcome_paths_blind_to_the_change_let_doing_nothing_score(refund_task: Task) -> None:
    blind = refund_task.model_copy(
        update={"verifier": refund_task.verifier.model_copy(update={"outcome_paths": ("escalations",)})}
    )
    result = validate_task(blind)
    (problem,) = result.problems
    assert problem.startswith("doing nothing scores 0.83, not 0")


def test_calls_after_the_terminal_call_are_reported(escalate_task: Task) -> None:
    tid = escalate_task.work_item.item_id
    padded = escalate_task.model_copy(
        update={"gold_solution": (*escalate_task.gold_solution, call("get_ticket", ticket_id=tid))}
    )
    assert any("after the episode ended" in p for p in validate_task(padded).problems)


def test_an_unknown_verifier_or_tool_is_a_problem_not_a_crash(refund_task: Task) -> None:
    unknown = refund_task.model_copy(
        update={"verifier": refund_task.verifier.model_copy(update={"verifier": "toy.v0"})}
    )
    assert "no verifier 'toy.v0'" in validate_task(unknown).problems[0]
    bad_tool = refund_task.model_copy(update={"tools": ("get_ticket", "teleport")})
    assert "teleport" in validate_task(bad_tool).problems[0]
