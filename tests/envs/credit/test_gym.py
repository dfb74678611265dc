"""The Gymnasium wrapper plays a credit task: the gold as JSON text actions earns reward 1.0."""

from __future__ import annotations

import json

import envs.credit  # noqa: F401 - registers the domain and the verifier
from envs.credit.tasks import generate_edge
from envs.gym_env import GymToolEnv


def test_the_gold_played_as_text_actions_ends_the_episode_with_full_reward() -> None:
    task = next(t for t in generate_edge(0, 1) if "edge:restatement" in t.tags)
    env = GymToolEnv([task])
    text, info = env.reset(options={"task_id": task.task_id})
    assert json.loads(text)["work_item"]["item_id"] == task.work_item.item_id
    reward, terminated = 0.0, False
    for call in task.gold_solution:
        text, reward, terminated, truncated, info = env.step(
            json.dumps({"name": call.name, "arguments": call.arguments})
        )
        assert not truncated
    assert terminated and reward == 1.0 and info["verdict"].passed
