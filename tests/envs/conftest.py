"""Fixtures for the envs tests: the toy refund-desk domain, its tasks, a task-set registry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import envs.toy as toy
from envs.env import ToolEnv
from envs.tasksets import TaskSetRegistry
from schemas.tasks import Task


@pytest.fixture(scope="session")
def toy_tasks() -> list[Task]:
    """Twelve toy tasks, refunds and escalations mixed."""
    tasks = toy.make_tasks(12, seed=7)
    kinds = {t.tags[0] for t in tasks}
    assert kinds == {"kind:refund", "kind:escalate"}, "the fixture must hold both kinds"
    return tasks


@pytest.fixture
def refund_task(toy_tasks: list[Task]) -> Task:
    """A task whose right handling is refund and close."""
    return next(t for t in toy_tasks if "kind:refund" in t.tags)


@pytest.fixture
def escalate_task(toy_tasks: list[Task]) -> Task:
    """A task whose right handling is escalation."""
    return next(t for t in toy_tasks if "kind:escalate" in t.tags)


@pytest.fixture
def env() -> ToolEnv:
    """A toy environment with a small budget."""
    return ToolEnv(toy.DOMAIN, max_steps=5)


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[TaskSetRegistry]:
    """An empty task-set registry in a temporary folder."""
    yield TaskSetRegistry(tmp_path / "tasksets")


@pytest.fixture(scope="session")
def rcm_base() -> list[Task]:
    """The full base set for seed 0 (generated once per test session, about 10 s)."""
    from envs.rcm.tasks import generate_base

    return generate_base(0)


@pytest.fixture(scope="session")
def rcm_edge() -> list[Task]:
    """The full edge set for seed 0."""
    from envs.rcm.tasks import generate_edge

    return generate_edge(0)


@pytest.fixture(scope="session")
def rcm_sample(rcm_base: list[Task], rcm_edge: list[Task]) -> list[Task]:
    """Three base tasks per CARC row and two per edge kind: every branch family, a fraction of the time."""
    seen: dict[str, int] = {}
    sample = []
    for task in [*rcm_base, *rcm_edge]:
        key = (
            next(t for t in task.tags if t.startswith("edge:")) if "dist:edge" in task.tags else task.tags[0]
        )
        if seen.get(key, 0) < (2 if "dist:edge" in task.tags else 3):
            seen[key] = seen.get(key, 0) + 1
            sample.append(task)
    return sample
