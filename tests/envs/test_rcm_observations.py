"""Observations carry nothing a real work item would not: no task id, and no token naming the task's
family, on reset or after any call, for every generated task worked by its gold and by doing nothing."""

from __future__ import annotations

import json
from functools import cache

from envs.contract import Finish, Observation
from envs.domain import DOMAINS
from envs.env import ToolEnv
from envs.rcm.cases_edge import EDGE
from envs.rcm.tasks import generate_base, generate_edge, generate_queue
from envs.rcm.twins import generate_twins
from schemas.tasks import Task


@cache
def tasks() -> tuple[Task, ...]:
    return tuple(generate_base(0) + generate_edge(0) + generate_queue(0) + generate_twins(0, 2))


def family_tokens(task: Task) -> set[str]:
    """What names the task or its family: its id, its set and distribution, its tags' labels."""
    tokens = {
        task.task_id,
        "rcm-base",
        "rcm-edge",
        "rcm-queue",
        "rcm-twins",
        "twin:",
        "dist:",
        "edge:",
        "carc:",
        "resolution:",
    }
    tokens |= {tag.removeprefix("edge:") for tag in task.tags if tag.startswith("edge:")}
    return tokens


def observations(task: Task) -> list[Observation]:
    env = ToolEnv(DOMAINS.get("rcm"), max_steps=max(30, len(task.gold_solution) + 1))
    seen = [env.reset(task)]
    for call in task.gold_solution:
        if env.done:
            break
        seen.append(env.step(call)[0])
    if not env.done:
        seen.append(env.step(Finish(message="done"))[0])
    return seen


def test_no_observation_names_the_task_or_its_family() -> None:
    leaks = []
    for task in tasks():
        tokens = family_tokens(task)
        for index, observation in enumerate(observations(task)):
            text = json.dumps(observation.model_dump(mode="json"))
            leaks += [(task.task_id, index, t) for t in tokens if t in text]
    assert leaks == []


def test_the_scan_covers_every_family_and_would_see_a_leak() -> None:
    kinds = {tag.removeprefix("edge:") for task in tasks() for tag in task.tags if tag.startswith("edge:")}
    assert kinds == set(EDGE)
    task = tasks()[0]
    leaky = task.model_copy(
        update={
            "work_item": task.work_item.model_copy(
                update={"payload": {**task.work_item.payload, "ref": task.task_id}}
            )
        }
    )
    text = json.dumps(observations(leaky)[0].model_dump(mode="json"))
    assert task.task_id in text
