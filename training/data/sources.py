"""Task sets as dataset sources: the tasks and what identifies them (name, version or seed, set hash)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from envs.catalog import resolve
from envs.tasksets import manifest_hash
from schemas.tasks import Task


@dataclass(frozen=True)
class LoadedTaskSet:
    """One task set, resolved."""

    label: str
    """`name@version` (a registry version) or `name (seed N)` (a built-in set generated from a seed)."""
    name: str
    version: int | None
    """Registry version; None for a generated or file task set."""
    seed: int | None
    """Generator seed of a built-in set; None otherwise."""
    set_hash: str
    """Hash over the task hashes: equal for identical task sets."""
    tasks: tuple[Task, ...]


def load_task_set(spec: str, *, root: str | Path, seed: int) -> LoadedTaskSet:
    """A task set by the CLI's spec: `name[@version]` in the registry at `root`, a built-in set
    generated from `seed`, or a `.jsonl` file (raises `TaskSetError` or `KeyError` when none fits)."""
    label, tasks = resolve(spec, root=root, seed=seed)
    name, version, generated = label, None, None
    if "@" in label:
        name, _, number = label.partition("@")
        version = int(number)
    elif label.endswith(f"(seed {seed})"):
        name, generated = label.split(" ", 1)[0], seed
    return LoadedTaskSet(
        label=label,
        name=name,
        version=version,
        seed=generated,
        set_hash=manifest_hash([task.compute_hash() for task in tasks]),
        tasks=tuple(tasks),
    )


def task_family(task: Task) -> str:
    """The family a task belongs to: the promoted case it is an instance of (`case:`,
    `envs.instances`: the most specific), else its `edge:` tag, else its `carc:` tag, else its first
    tag."""
    for prefix in ("case:", "edge:", "carc:"):
        found = next((tag for tag in task.tags if tag.startswith(prefix)), None)
        if found is not None:
            return found
    return task.tags[0] if task.tags else "untagged"


def only_families(task_set: LoadedTaskSet, families: frozenset[str]) -> LoadedTaskSet:
    """The tasks of `task_set` in `families` (`edge:multi_carc`, `carc:16`), relabelled and re-hashed."""
    tasks = tuple(t for t in task_set.tasks if task_family(t) in families)
    return LoadedTaskSet(
        label=f"{task_set.label} [{', '.join(sorted(families))}]",
        name=task_set.name,
        version=task_set.version,
        seed=task_set.seed,
        set_hash=manifest_hash([t.compute_hash() for t in tasks]),
        tasks=tasks,
    )


def without_families(task_set: LoadedTaskSet, families: frozenset[str]) -> LoadedTaskSet:
    """The tasks of `task_set` outside `families`."""
    return only_families(task_set, frozenset({task_family(t) for t in task_set.tasks}) - families)


def task_key(task: Task) -> str:
    """A task's id and the start of its content hash: generated sets reuse ids across seeds."""
    return f"{task.task_id}#{task.compute_hash()[:12]}"
