"""Small task sets for training tests: one task per CARC row and per edge kind (seconds, not minutes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from envs.rcm.tasks import generate_base, generate_edge
from envs.tasksets import manifest_hash
from schemas.tasks import Task
from training.data import ChatRow, DatasetSpec, LoadedTaskSet, build_dataset
from training.data.sources import task_family
from training.loop import LoopConfig
from training.structured.bootstrap import fit_structured
from training.structured.store import save_model


@pytest.fixture
def one_thread() -> Iterator[None]:
    """Torch on one thread for the test: these small models sample fastest on one (GRPO's runs pin
    it themselves)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


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


TINY_FAMILIES = ("carc:1", "carc:18", "carc:B7")
"""Families the tiny structured model learns: a patient share, a duplicate, a hand-off."""


@pytest.fixture(scope="session")
def tiny_families() -> tuple[str, ...]:
    """The families the tiny structured model learns."""
    return TINY_FAMILIES


@pytest.fixture(scope="session")
def tiny_rows(small_base: LoadedTaskSet) -> list[ChatRow]:
    """Gold rows of one task of each tiny family."""
    tasks = [t for t in small_base.tasks if task_family(t) in TINY_FAMILIES]
    return build_dataset(DatasetSpec(name="tiny", primary=(_loaded("rcm-base", tasks),))).rows


@pytest.fixture(scope="session")
def tiny_structured(tmp_path_factory: pytest.TempPathFactory, tiny_rows: list[ChatRow]) -> Path:
    """A structured policy model overfit on the tiny rows in a few seconds, saved to a folder."""
    fit = fit_structured(
        tiny_rows,
        d_model=32,
        layers=1,
        heads=2,
        loop=LoopConfig(epochs=60, batch_size=8, lr=5e-3, warmup=0.05),
    )
    folder = tmp_path_factory.mktemp("models") / "tiny-structured"
    save_model(folder, fit.model, fit.vocab, {"name": "tiny-structured", "final_loss": fit.result.final_loss})
    return folder
