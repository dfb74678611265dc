"""The Gymnasium wrapper passes gymnasium's own checker and pays the verdict at the end."""

from __future__ import annotations

import json

from gymnasium.utils.env_checker import check_env

from envs.gym_env import GymToolEnv
from schemas.tasks import Task


def test_gymnasium_env_checker_accepts_the_wrapper(toy_tasks: list[Task]) -> None:
    check_env(GymToolEnv(toy_tasks), skip_render_check=True)


def test_gold_actions_as_json_earn_the_full_reward(refund_task: Task) -> None:
    env = GymToolEnv([refund_task])
    text, info = env.reset(seed=0, options={"task_id": refund_task.task_id})
    assert json.loads(text)["work_item"]["item_id"] == refund_task.work_item.item_id
    rewards = [
        env.step(json.dumps({"name": c.name, "arguments": c.arguments}))[1] for c in refund_task.gold_solution
    ]
    _, reward, terminated, truncated, info = env.step(json.dumps({"finish": "done"}))
    assert rewards == [0.0] * len(rewards) and reward == 1.0
    assert terminated and not truncated and info["verdict"].passed


def test_garbage_actions_cost_steps_and_truncate(refund_task: Task) -> None:
    env = GymToolEnv([refund_task], max_steps=2)
    env.reset(seed=0)
    text, _, terminated, truncated, _ = env.step("not json")
    assert json.loads(text)["result"]["error"]["kind"] == "unknown_tool" and not (terminated or truncated)
    _, reward, terminated, truncated, _ = env.step("{}")
    assert truncated and not terminated and reward == 0.0


def test_an_rcm_task_through_the_wrapper(rcm_sample: list[Task]) -> None:
    task = next(t for t in rcm_sample if "resolution:replacement" in t.tags)
    env = GymToolEnv([task])
    env.reset(seed=0)
    for call in task.gold_solution:
        text, *_ = env.step(json.dumps({"name": call.name, "arguments": call.arguments}))
        assert json.loads(text)["result"]["outcome"] == "ok"
    _, reward, terminated, _, _ = env.step(json.dumps({"finish": "worked"}))
    assert terminated and reward == 1.0
    assert env.world["claims"][task.work_item.item_id]["status"] == "replaced"
