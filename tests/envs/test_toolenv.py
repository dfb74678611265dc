"""The environment contract (envs/INVARIANTS.md), exercised on the toy domain."""

from __future__ import annotations

import pytest

import envs.toy as toy
from envs.contract import EnvError, Finish
from envs.env import ToolEnv, replay
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from tests.envs.helpers import call


def test_reset_shows_the_work_item_and_exactly_the_tasks_tools(env: ToolEnv, refund_task: Task) -> None:
    narrowed = refund_task.model_copy(update={"tools": ("get_ticket", "escalate")})
    obs = env.reset(narrowed)
    assert obs.kind == "reset" and obs.work_item == refund_task.work_item
    assert [t["function"]["name"] for t in obs.tools] == ["get_ticket", "escalate"]
    assert (obs.step, obs.steps_left, obs.done) == (0, 5, False)


def test_a_tool_outside_the_task_fails_as_data_not_as_an_exception(env: ToolEnv, refund_task: Task) -> None:
    env.reset(refund_task.model_copy(update={"tools": ("get_ticket",)}))
    obs, done = env.step(call("issue_refund", ticket_id="T-0000", amount="1"))
    assert not done and obs.result is not None
    assert obs.result.outcome is ToolOutcome.FAILED and obs.result.error is not None
    assert obs.result.error.kind == "unknown_tool"


def test_bad_arguments_come_back_as_a_validation_error(env: ToolEnv, refund_task: Task) -> None:
    env.reset(refund_task)
    obs, _ = env.step(call("issue_refund", ticket_id=refund_task.work_item.item_id, amount="-3"))
    assert obs.result is not None and obs.result.error is not None
    assert obs.result.error.kind == "validation"


def test_a_successful_terminal_tool_ends_the_episode_but_a_malformed_one_does_not(
    env: ToolEnv, escalate_task: Task
) -> None:
    tid = escalate_task.work_item.item_id
    env.reset(escalate_task)
    _, done = env.step(call("escalate", ticket_id=tid))  # reason missing: invalid
    assert not done
    obs, done = env.step(call("escalate", ticket_id=tid, reason="above limit"))
    assert done and obs.end_reason == "terminal_tool"
    with pytest.raises(EnvError, match="is over"):
        env.step(call("get_ticket", ticket_id=tid))


def test_the_step_budget_truncates_the_episode(env: ToolEnv, refund_task: Task) -> None:
    env.reset(refund_task)
    tid = refund_task.work_item.item_id
    dones = [env.step(call("get_ticket", ticket_id=tid))[1] for _ in range(5)]
    assert dones == [False] * 4 + [True]
    assert env.end_reason == "budget_exhausted"


def test_finish_ends_the_episode_and_keeps_the_message(env: ToolEnv, refund_task: Task) -> None:
    env.reset(refund_task)
    obs, done = env.step(Finish(message="all good"))
    assert done and obs.kind == "finished" and obs.end_reason == "agent_finished"
    assert env.trajectory().final_message == "all good"


def test_step_before_reset_is_refused() -> None:
    with pytest.raises(EnvError, match="reset"):
        ToolEnv(toy.DOMAIN).step(Finish())


def test_the_world_is_inspectable_and_a_copy(env: ToolEnv, refund_task: Task) -> None:
    env.reset(refund_task)
    world = env.world
    world["tickets"].clear()
    assert env.world == refund_task.initial_world


def test_same_task_same_seed_same_observations(refund_task: Task) -> None:
    def run() -> list[str]:
        env = ToolEnv(toy.DOMAIN)
        out = [env.reset(refund_task, seed=3).model_dump_json()]
        out += [env.step(c)[0].model_dump_json() for c in refund_task.gold_solution]
        return out

    assert run() == run()


def test_reset_refuses_a_task_of_another_domain(env: ToolEnv, refund_task: Task) -> None:
    with pytest.raises(EnvError, match="domain"):
        env.reset(refund_task.model_copy(update={"domain": "rcm"}))


def test_replay_stops_at_the_terminal_call(escalate_task: Task) -> None:
    extra = (*escalate_task.gold_solution, call("get_ticket", ticket_id=escalate_task.work_item.item_id))
    trajectory = replay(toy.DOMAIN, escalate_task, extra)
    assert len(trajectory.turns) == len(escalate_task.gold_solution)
    assert trajectory.final_world["tickets"][escalate_task.work_item.item_id]["status"] == "escalated"
