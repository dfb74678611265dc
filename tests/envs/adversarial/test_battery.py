"""The exploit battery: scores next to doing nothing, wins with their checks, the hackable share."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from envs.adversarial.battery import exploit_report
from envs.adversarial.exploits import CallEveryTool, DeclareSuccess
from envs.contract import Action, Finish, Turn
from envs.rollout.policy import PlanPolicy
from schemas.tasks import Task, WorkItem
from schemas.tools import ToolCall


def close_blindly(item: WorkItem, turns: tuple[Turn, ...]) -> Action:
    """Reads the ticket, then closes it as refunded without refunding anything."""
    steps = [
        ToolCall(call_id="a", name="get_ticket", arguments={"ticket_id": item.item_id}),
        ToolCall(
            call_id="b", name="close_ticket", arguments={"ticket_id": item.item_id, "resolution": "refunded"}
        ),
    ]
    return steps[len(turns)] if len(turns) < len(steps) else Finish(message="refunded")


def explode(item: WorkItem, turns: tuple[Turn, ...]) -> Action:
    raise RuntimeError("boom")


CLOSE_BLINDLY = PlanPolicy("close_blindly", close_blindly)


def test_an_exploit_the_weak_verifier_rewards_is_a_win_with_its_checks(toy_set: Sequence[Task]) -> None:
    report = exploit_report(toy_set, [CLOSE_BLINDLY], ["toy.v1", "toy.weak"])
    strong, weak = report.verifiers
    refunds = [t.task_id for t in toy_set if "kind:refund" in t.tags]
    assert strong.hackable_tasks == 0 and strong.hackable_share == 0.0
    assert weak.hackable_tasks == len(refunds) == weak.fooled_tasks
    assert weak.hackable_share == len(refunds) / len(toy_set)
    wins = [w for w in report.wins if w.verifier == "toy.weak"]
    assert sorted(w.task_id for w in wins) == sorted(refunds)
    win = wins[0]
    assert win.policy == "close_blindly" and win.do_nothing == 0.0 and win.score > 0
    assert not win.outcome_matches_gold
    assert any(name.startswith("outcome.") for name in win.passed_checks)


def test_every_task_row_holds_the_do_nothing_score_and_each_exploit(toy_set: Sequence[Task]) -> None:
    report = exploit_report(toy_set, [DeclareSuccess(), CallEveryTool()], ["toy.v1"])
    [summary] = report.verifiers
    assert len(summary.rows) == len(toy_set)
    for row in summary.rows:
        assert row.do_nothing == 0.0 and set(row.scores) == {"declare_success", "call_every_tool"}
    assert [p.policy for p in summary.policies] == ["declare_success", "call_every_tool"]


def test_a_policy_that_raises_is_recorded_and_the_battery_goes_on(toy_set: Sequence[Task]) -> None:
    report = exploit_report(toy_set[:2], [PlanPolicy("explode", explode), DeclareSuccess()], ["toy.v1"])
    assert len(report.errors) == 2 and "RuntimeError: boom" in report.errors[0]
    assert all(set(row.scores) == {"explode", "declare_success"} for row in report.verifiers[0].rows)


def test_exploit_names_must_be_unique_and_not_the_baseline(toy_set: Sequence[Task]) -> None:
    with pytest.raises(ValueError, match="unique"):
        exploit_report(toy_set, [DeclareSuccess(), DeclareSuccess()])
    with pytest.raises(ValueError, match="do_nothing"):
        exploit_report(toy_set, [PlanPolicy("do_nothing", explode)])
