"""A tiny random-weight Llama and the datasets it trains on (toy tasks, and rcm gold rows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.catalog import generate
from envs.tasksets import manifest_hash
from schemas.tasks import Task
from training.data import DatasetSpec, LoadedTaskSet, build_dataset, write_dataset
from training.data.sources import task_family
from training.hf.tiny import build_tiny_llama


def _loaded(name: str, tasks: list[Task]) -> LoadedTaskSet:
    return LoadedTaskSet(
        f"{name} (seed 0)", name, None, 0, manifest_hash([t.compute_hash() for t in tasks]), tuple(tasks)
    )


@pytest.fixture(scope="session")
def toy_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Gold rows of four toy tasks, written as a dataset folder."""
    loaded = _loaded("toy", generate("toy", 0)[:4])
    return write_dataset(
        build_dataset(DatasetSpec(name="toy", primary=(loaded,))), tmp_path_factory.mktemp("data")
    )


@pytest.fixture(scope="session")
def rcm_dataset(
    tmp_path_factory: pytest.TempPathFactory, small_base: LoadedTaskSet, tiny_families: tuple[str, ...]
) -> Path:
    """rcm gold rows of three families (many tools, nested and numeric arguments), as a dataset folder."""
    tasks = [t for t in small_base.tasks if task_family(t) in tiny_families]
    loaded = _loaded("rcm-base", tasks)
    return write_dataset(
        build_dataset(DatasetSpec(name="rcm-tiny", primary=(loaded,), alternatives=False)),
        tmp_path_factory.mktemp("data"),
    )


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory, toy_dataset: Path) -> Path:
    """A tiny random-weight Llama whose tokenizer was trained on the toy rows."""
    texts = [line for line in (toy_dataset / "data.jsonl").read_text().splitlines()]
    return build_tiny_llama(tmp_path_factory.mktemp("models") / "tiny-llama", texts)
