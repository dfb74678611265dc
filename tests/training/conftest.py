"""Small task sets for training tests: one task per CARC row and per edge kind (seconds, not minutes)."""

from __future__ import annotations

import pytest

from envs.rcm.tasks import generate_base, generate_edge
from envs.tasksets import manifest_hash
from schemas.tasks import Task
from training.data import LoadedTaskSet


def _loaded(name: str, tasks: list[Task]) -> LoadedTaskSet:
    return LoadedTaskSet(
        label=f"{name} (seed 0)",
        name=name,
        version=None,
        seed=0,
        set_hash=manifest_hash([t.compute_hash() for t in tasks]),
        tasks=tuple(tasks),
    )


@pytest.fixture(scope="session")
def small_base() -> LoadedTaskSet:
    """One rcm-base task per CARC row."""
    return _loaded("rcm-base", generate_base(0, per_carc=1))


@pytest.fixture(scope="session")
def small_edge() -> LoadedTaskSet:
    """One rcm-edge task per edge kind."""
    return _loaded("rcm-edge", generate_edge(0, per_kind=1))
