"""A tiny structured base model and tiny task sets, so a whole improvement cycle takes seconds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from envs.rcm.tasks import generate_base
from envs.tasksets import TaskSetRegistry, manifest_hash
from training.data import DatasetSpec, LoadedTaskSet, build_dataset
from training.data.sources import task_family

BASE_FAMILIES = ("carc:1", "carc:18", "carc:B7")
NEW_FAMILIES = ("carc:45", "carc:97")


@dataclass(frozen=True)
class TinyWorld:
    """Where the tiny model and task sets are."""

    base_model: Path
    tasksets_root: Path


def build_tiny_world(root: Path) -> TinyWorld:
    """A structured model fit on three families (`tiny-base`) and a set of two families it never
    saw (`tiny-promoted`), published in a task-set registry."""
    from training.loop import LoopConfig
    from training.structured.bootstrap import fit_structured
    from training.structured.store import save_model

    tasks = generate_base(0, per_carc=1)
    base = [t for t in tasks if task_family(t) in BASE_FAMILIES]
    new = [t for t in tasks if task_family(t) in NEW_FAMILIES]
    registry = TaskSetRegistry(root / "tasksets")
    registry.publish("tiny-base", base)
    registry.publish("tiny-promoted", new)
    loaded = LoadedTaskSet(
        label="tiny-base", name="tiny-base", version=1, seed=None,
        set_hash=manifest_hash([t.compute_hash() for t in base]), tasks=tuple(base),
    )  # fmt: skip
    rows = build_dataset(DatasetSpec(name="tiny", primary=(loaded,))).rows
    fit = fit_structured(
        rows, d_model=32, layers=1, heads=2, loop=LoopConfig(epochs=30, batch_size=8, lr=5e-3)
    )
    folder = root / "models" / "tiny-structured"
    save_model(folder, fit.model, fit.vocab, {"name": "tiny-structured"})
    return TinyWorld(base_model=folder, tasksets_root=root / "tasksets")
