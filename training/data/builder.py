"""Build, write and load datasets: task sets → chat rows → PHI surrogates → replay mix → JSONL + manifest.

Deterministic: the same task sets, seed and ratio give the same bytes, hence the same content hash.
A dataset folder is written once; writing different content under an existing name is refused.
"""

from __future__ import annotations

import hashlib
import os
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from adapters.chat import DEFAULT_SYSTEM_PROMPT, prompt_hash
from adapters.spec import ToolSpec
from envs.domain import DOMAINS
from schemas.tools import ToolCall
from training.data.corrupt import corrupted
from training.data.episodes import solution_row, task_rows
from training.data.manifest import DatasetManifest, SourceRecord
from training.data.phi import PhiScrubber
from training.data.production import EpisodeSet
from training.data.rows import ChatRow
from training.data.sources import LoadedTaskSet, task_key
from training.lineage import code_version

DATA_FILE = "data.jsonl"
MANIFEST_FILE = "manifest.json"

Role = Literal["primary", "replay"]

Progress = Callable[[int, int], None]
"""(tasks done, tasks in all)."""


class DatasetError(ValueError):
    """A dataset that cannot be built, written or loaded as asked."""


@dataclass(frozen=True)
class DatasetSpec:
    """What to build: the tasks to learn, the replay buffer, and the mix."""

    name: str
    primary: tuple[LoadedTaskSet, ...]
    replay: tuple[LoadedTaskSet, ...] = ()
    replay_ratio: float = 0.5
    """Share of the dataset's rows drawn from the replay buffer (capped by what the buffer has)."""
    seed: int = 0
    """Seed of the replay sample."""
    alternatives: bool = True
    """Include every alternative gold trajectory, not just the gold solution."""
    corrupt: bool = False
    """Replace every task's gold with one of its outcome-changing mutants (`training.data.corrupt`),
    to prove the gate stops what such data teaches."""
    trajectories: Mapping[str, Sequence[tuple[str, Sequence[ToolCall]]]] | None = None
    """When given, the primary tasks' rows come from these named trajectories (by `task_key`)
    instead of their gold: the rollouts rejection sampling kept. A task without any gives no row."""
    sampling: Mapping[str, Any] | None = field(default=None)
    """How the trajectories were sampled (policy, k, temperature, seeds, counts), for the manifest."""
    episodes: tuple[EpisodeSet, ...] = ()
    """Confirmed production episodes (`training.data.production`), learned like primary tasks."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.replay_ratio < 1.0:
            raise DatasetError(f"replay_ratio must be in [0, 1), not {self.replay_ratio}")
        if not self.primary and not self.replay and not self.episodes:
            raise DatasetError("a dataset needs at least one task set or episode source")


@dataclass(frozen=True)
class Dataset:
    """Rows and their manifest."""

    rows: list[ChatRow]
    manifest: DatasetManifest


def dataset_bytes(rows: Sequence[ChatRow]) -> bytes:
    """The JSONL file's exact bytes: one row per line."""
    return "".join(row.model_dump_json() + "\n" for row in rows).encode()


def build_dataset(spec: DatasetSpec, *, progress: Progress | None = None) -> Dataset:
    """Render, scrub and mix; the manifest's hash is that of `dataset_bytes(rows)`."""
    total = sum(len(s.tasks) for s in (*spec.primary, *spec.replay))
    done = 0
    per_source: list[tuple[LoadedTaskSet, Role, list[ChatRow]]] = []
    roles: tuple[tuple[Role, tuple[LoadedTaskSet, ...]], ...] = (
        ("primary", spec.primary),
        ("replay", spec.replay),
    )
    for role, sets in roles:
        for task_set in sets:
            rows: list[ChatRow] = []
            for task in task_set.tasks:
                if role == "primary" and spec.trajectories is not None:
                    rows += [
                        solution_row(task, calls, task_set=task_set.label, solution=name, role=role)
                        for name, calls in spec.trajectories.get(task_key(task), ())
                    ]
                else:
                    source = corrupted(task) if spec.corrupt else task
                    rendered = task_rows(source, task_set=task_set.label, role=role)
                    rows += rendered if spec.alternatives else rendered[:1]
                done += 1
                if progress is not None:
                    progress(done, total)
            per_source.append((task_set, role, rows))
    domains = frozenset(d for e in spec.episodes for d in e.domains)
    scrubber = PhiScrubber(_specs([*spec.primary, *spec.replay], domains))
    scrubber.fit(
        [*(row for _, _, rows in per_source for row in rows), *(r for e in spec.episodes for r in e.rows)]
    )
    per_source = [(s, role, [scrubber.row(r) for r in rows]) for s, role, rows in per_source]
    episode_rows = [[scrubber.row(r) for r in e.rows] for e in spec.episodes]
    primary = [row for _, role, rows in per_source if role == "primary" for row in rows]
    primary += [row for rows in episode_rows for row in rows]
    buffer = [(i, row) for i, (_, role, rows) in enumerate(per_source) if role == "replay" for row in rows]
    picked = _replay_sample(len(primary), buffer, spec.replay_ratio, spec.seed)
    taken = Counter(index for index, _ in picked)
    rows = primary + [row for _, row in picked]
    sources = tuple(
        SourceRecord(
            label=s.label,
            name=s.name,
            version=s.version,
            seed=s.seed,
            set_hash=s.set_hash,
            role=role,
            tasks=len(s.tasks),
            rows=len(source_rows) if role == "primary" else taken[i],
        )
        for i, (s, role, source_rows) in enumerate(per_source)
    ) + tuple(
        SourceRecord(
            label=e.label,
            name=e.label,
            kind="episodes",
            set_hash=e.set_hash,
            role="primary",
            tasks=e.episodes_seen,
            rows=len(e.rows),
            skipped=e.skipped,
        )
        for e in spec.episodes
    )
    manifest = DatasetManifest(
        name=spec.name,
        content_hash=hashlib.sha256(dataset_bytes(rows)).hexdigest(),
        rows=len(rows),
        seed=spec.seed,
        replay_ratio=spec.replay_ratio,
        corrupted=spec.corrupt,
        sampling=dict(spec.sampling) if spec.sampling is not None else None,
        sources=sources,
        task_set_versions={s.name: s.version for s in (*spec.primary, *spec.replay)},
        counts=_counts(rows),
        phi={"scheme": "surrogates.v1 (keyed hash of the recorded value)", "replaced": scrubber.replaced},
        system_prompt_hash=prompt_hash(DEFAULT_SYSTEM_PROMPT),
        code_version=code_version(),
    )
    return Dataset(rows=rows, manifest=manifest)


def _specs(
    sets: Sequence[LoadedTaskSet], extra: frozenset[str] = frozenset()
) -> dict[str, ToolSpec[Any, Any]]:
    domains = {task.domain for s in sets for task in s.tasks} | extra
    return {spec.name: spec for d in sorted(domains) for spec in DOMAINS.get(d).tool_specs()}


def _replay_sample(
    primary: int, buffer: list[tuple[int, ChatRow]], ratio: float, seed: int
) -> list[tuple[int, ChatRow]]:
    """`ratio` of the final rows from the buffer (all of it when there is nothing primary)."""
    if not buffer:
        return []
    if primary == 0:
        return buffer
    wanted = min(len(buffer), round(primary * ratio / (1.0 - ratio)))
    chosen = sorted(random.Random(seed).sample(range(len(buffer)), wanted))
    return [buffer[i] for i in chosen]


def _counts(rows: Sequence[ChatRow]) -> dict[str, dict[str, int]]:
    messages: Counter[str] = Counter()
    for row in rows:
        for message in row.messages:
            messages[message["role"]] += 1
            messages["tool_calls"] += len(message.get("tool_calls") or ())
    return {
        "role": dict(sorted(Counter(r.meta.role for r in rows).items())),
        "solution": dict(sorted(Counter(r.meta.solution.split("-")[0] for r in rows).items())),
        "family": dict(sorted(Counter(r.meta.family for r in rows).items())),
        "messages": dict(sorted(messages.items())),
    }


def write_dataset(dataset: Dataset, root: Path) -> Path:
    """Write `root/<name>/data.jsonl` and `manifest.json`; an existing dataset of that name must
    have the same content (it is then left as it is)."""
    folder = root / dataset.manifest.name
    existing = folder / MANIFEST_FILE
    if existing.exists():
        old = DatasetManifest.model_validate_json(existing.read_text())
        if old.content_hash != dataset.manifest.content_hash:
            raise DatasetError(
                f"dataset {dataset.manifest.name!r} already exists in {root} with other content "
                f"({old.content_hash[:12]} vs {dataset.manifest.content_hash[:12]}); choose another name"
            )
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    _atomic_write(folder / DATA_FILE, dataset_bytes(dataset.rows))
    _atomic_write(existing, (dataset.manifest.model_dump_json(indent=2) + "\n").encode())
    return folder


def load_dataset(folder: Path) -> Dataset:
    """A written dataset; raises `DatasetError` when it is missing or its content does not match."""
    manifest_path, data_path = folder / MANIFEST_FILE, folder / DATA_FILE
    if not manifest_path.is_file() or not data_path.is_file():
        raise DatasetError(f"{folder} holds no dataset ({MANIFEST_FILE} and {DATA_FILE} expected)")
    manifest = DatasetManifest.model_validate_json(manifest_path.read_text())
    data = data_path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != manifest.content_hash:
        raise DatasetError(
            f"{data_path} does not match its manifest (hash {actual[:12]}, manifest {manifest.content_hash[:12]})"
        )
    rows = [ChatRow.model_validate_json(line) for line in data.decode().splitlines() if line.strip()]
    return Dataset(rows=rows, manifest=manifest)


def _atomic_write(path: Path, data: bytes) -> None:
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.fchmod(handle, 0o644)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
