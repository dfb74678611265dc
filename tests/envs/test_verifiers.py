"""Verifiers: outcome gates the score, process checks refine it, every check is named."""

from __future__ import annotations

from typing import Literal

import pytest

import envs.toy as toy
from envs.contract import Trajectory
from envs.env import replay
from envs.verifiers import VERIFIERS, UnknownVerifier, gated_score, score_task
from envs.verifiers.outcome import expand
from envs.verifiers.process import value_matches
from schemas.tasks import CallConstraint, Task
from schemas.verdicts import CheckResult
from tests.envs.helpers import call


def run(task: Task, *calls: object) -> Trajectory:
    return replay(toy.DOMAIN, task, tuple(calls))  # type: ignore[arg-type]


def failed(verdict_checks: tuple[CheckResult, ...]) -> set[str]:
    return {c.name for c in verdict_checks if not c.passed}


def test_the_gold_solution_passes_with_score_one(refund_task: Task) -> None:
    verdict = score_task(refund_task, run(refund_task, *refund_task.gold_solution))
    assert verdict.passed and verdict.score == 1.0
    assert all(c.explanation for c in verdict.checks)


def test_a_wrong_outcome_scores_zero_however_tidy_the_process(refund_task: Task) -> None:
    tid = refund_task.work_item.item_id
    trajectory = run(
        refund_task,
        call("get_ticket", ticket_id=tid),
        call("issue_refund", ticket_id=tid, amount="1.00"),
        call("close_ticket", ticket_id=tid, resolution="refunded"),
    )
    verdict = score_task(refund_task, trajectory)
    assert verdict.score == 0.0 and not verdict.passed
    assert failed(verdict.checks) == {f"outcome.tickets.{tid}.refunded"}
    assert "gold" in next(c for c in verdict.checks if not c.passed).explanation


def test_the_right_outcome_with_a_skipped_read_earns_partial_credit(refund_task: Task) -> None:
    trajectory = run(refund_task, *refund_task.gold_solution[1:])
    verdict = score_task(refund_task, trajectory)
    assert 0.5 <= verdict.score < 1.0 and not verdict.passed
    assert failed(verdict.checks) == {"process.required.get_ticket.0", "process.toy.read_before_write"}


def test_a_forbidden_call_costs_process_credit_even_when_the_system_refused_it(refund_task: Task) -> None:
    rule = CallConstraint(
        tool="get_ticket", arguments={"ticket_id": "T-9999"}, reason="not this customer's ticket"
    )
    task = refund_task.model_copy(
        update={"verifier": refund_task.verifier.model_copy(update={"forbidden_calls": (rule,)})}
    )
    trajectory = run(task, call("get_ticket", ticket_id="T-9999"), *task.gold_solution)
    assert trajectory.turns[0].result.error is not None  # refused: no such ticket
    verdict = score_task(task, trajectory)
    assert failed(verdict.checks) == {"process.forbidden.get_ticket.0"}
    assert 0.5 <= verdict.score < 1.0
    assert "not this customer's ticket" in next(c for c in verdict.checks if not c.passed).explanation


def test_a_refund_above_the_limit_fails_outcome_and_the_forbidden_rule(escalate_task: Task) -> None:
    tid = escalate_task.work_item.item_id
    trajectory = run(
        escalate_task,
        call("get_ticket", ticket_id=tid),
        call("issue_refund", ticket_id=tid, amount="5"),
        call("escalate", ticket_id=tid, reason="above the limit"),
    )
    verdict = score_task(escalate_task, trajectory)
    assert verdict.score == 0.0
    assert {"process.forbidden.issue_refund.0", f"outcome.tickets.{tid}.refunded"} <= failed(verdict.checks)


def test_missing_escalation_is_named(escalate_task: Task) -> None:
    tid = escalate_task.work_item.item_id
    verdict = score_task(escalate_task, run(escalate_task, call("get_ticket", ticket_id=tid)))
    assert "process.escalation" in failed(verdict.checks)
    assert verdict.score == 0.0


def test_argument_constraints_normalise_through_the_tool_model(refund_task: Task) -> None:
    tid = refund_task.work_item.item_id
    amount = refund_task.initial_world["tickets"][tid]["amount"]
    rule = CallConstraint(tool="issue_refund", arguments={"amount": float(amount)})
    task = refund_task.model_copy(
        update={"verifier": refund_task.verifier.model_copy(update={"required_calls": (rule,)})}
    )
    assert score_task(task, run(task, *task.gold_solution)).passed  # "12.30" matches 12.3


@pytest.mark.parametrize(
    ("got", "want", "ok"),
    [
        ("12.30", 12.3, True),
        ("12.30", "12.31", False),
        ("a", {"$in": ["a", "b"]}, True),
        (["x", "y"], {"$contains": "y"}, True),
        (["x"], {"$contains": "y"}, False),
        ("appeal letter", {"$contains": "letter"}, True),
        ("a", {"$ne": "a"}, False),
        (True, 1, False),
    ],
)
def test_value_matching(got: object, want: object, ok: bool) -> None:
    assert value_matches(got, want) is ok


def test_unknown_operator_is_an_error() -> None:
    with pytest.raises(ValueError, match="operator"):
        value_matches(1, {"$regex": "x"})


def test_gated_score() -> None:
    def check(kind: Literal["outcome", "process"], passed: bool, weight: float = 1.0) -> CheckResult:
        return CheckResult(name=kind, kind=kind, passed=passed, weight=weight, explanation="-")

    assert gated_score([]) == 0.0
    assert gated_score([check("process", True)]) == 0.0  # no outcome check: nothing to reward
    assert gated_score([check("outcome", False), check("process", True)]) == 0.0
    assert gated_score([check("outcome", True)]) == 1.0
    assert gated_score([check("outcome", True), check("process", False, 3), check("process", True)]) == 0.625


def test_wildcard_paths_expand_over_both_worlds() -> None:
    got = {"claims": {"A": {"s": 1}}}
    want = {"claims": {"A": {"s": 1}, "B": {"s": 2}}}
    assert list(expand("claims.*.s", got, want)) == [("claims", "A", "s"), ("claims", "B", "s")]


def test_an_unknown_verifier_is_a_clear_error() -> None:
    with pytest.raises(UnknownVerifier, match=r"nope\.v9"):
        VERIFIERS.get("nope.v9")
