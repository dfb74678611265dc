"""Immutable, content-hashed, versioned task sets on disk.

Layout under a registry root (one folder per task set, two files per version):

    <root>/<name>/v0001.jsonl          one `Task` per line, in manifest order
    <root>/<name>/v0001.manifest.json  the `TaskSetManifest`: task ids, task hashes, set hash

A version is claimed with an exclusive hard link (`os.link` fails if the name exists), so two
publishers can never write the same version and nothing is ever overwritten. The manifest is linked
last: a version without one is incomplete (a crash mid-publish) and is neither listed nor loaded.
Every load re-hashes every task and refuses a file that does not match its manifest.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from schemas.tasks import Task, TaskSetManifest, content_hash

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_VERSION_FILE = re.compile(r"^v(\d{4,})\.manifest\.json$")


class TaskSetError(ValueError):
    """A task set that cannot be published or loaded."""


class TaskSetTampered(TaskSetError):
    """A stored task set whose content no longer matches its manifest."""


@dataclass(frozen=True)
class TaskSet:
    """One loaded version: its manifest and its tasks, in order."""

    manifest: TaskSetManifest
    tasks: tuple[Task, ...]

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def by_id(self, task_id: str) -> Task:
        """The task with `task_id`."""
        for task in self.tasks:
            if task.task_id == task_id:
                return task
        raise KeyError(f"{self.manifest.name} v{self.manifest.version} has no task {task_id!r}")


def manifest_hash(task_hashes: Sequence[str]) -> str:
    """The set hash: equal for identical task sets, whatever their name or version."""
    return content_hash(list(task_hashes))


def dump_jsonl(tasks: Iterable[Task]) -> str:
    """Tasks as JSONL text, one canonical line each."""
    return "".join(task.model_dump_json() + "\n" for task in tasks)


def parse_jsonl(text: str, *, source: str = "<jsonl>") -> list[Task]:
    """Tasks from JSONL text; a bad line is a `TaskSetError` naming the line."""
    tasks = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            tasks.append(Task.model_validate_json(line))
        except ValidationError as exc:
            raise TaskSetError(
                f"{source}:{number}: not a valid task ({exc.error_count()} errors: {exc})"
            ) from exc
    return tasks


class TaskSetRegistry:
    """Publish and load task-set versions under `root`."""

    def __init__(
        self, root: str | Path, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self.root = Path(root)
        self._clock = clock

    def names(self) -> list[str]:
        """Task sets with at least one complete version."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and self.versions(p.name))

    def versions(self, name: str) -> list[int]:
        """Complete versions of `name`, ascending."""
        folder = self.root / _check_name(name)
        if not folder.is_dir():
            return []
        found = (_VERSION_FILE.match(p.name) for p in folder.iterdir())
        return sorted(int(m.group(1)) for m in found if m)

    def publish(self, name: str, tasks: Sequence[Task], notes: str = "") -> TaskSetManifest:
        """Write `tasks` as a new version of `name` and return its manifest; never overwrites."""
        folder = self.root / _check_name(name)
        if not tasks:
            raise TaskSetError("a task set needs at least one task")
        ids = [task.task_id for task in tasks]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise TaskSetError(f"duplicate task ids: {', '.join(dupes[:5])}")
        folder.mkdir(parents=True, exist_ok=True)
        hashes = tuple(task.compute_hash() for task in tasks)
        tasks_tmp = _write_temp(folder, dump_jsonl(tasks))
        try:
            version = self._claim(folder, tasks_tmp)
        finally:
            os.unlink(tasks_tmp)
        earlier = [v for v in self.versions(name) if v < version]
        manifest = TaskSetManifest(
            name=name,
            version=version,
            created_at=self._clock(),
            task_ids=tuple(ids),
            task_hashes=hashes,
            content_hash=manifest_hash(hashes),
            parent_version=earlier[-1] if earlier else None,
            notes=notes,
        )
        manifest_tmp = _write_temp(folder, manifest.model_dump_json(indent=2) + "\n")
        try:
            os.link(manifest_tmp, folder / f"v{version:04d}.manifest.json")
        finally:
            os.unlink(manifest_tmp)
        return manifest

    def load(self, name: str, version: int | None = None) -> TaskSet:
        """A version (the latest by default), every task re-hashed against the manifest."""
        known = self.versions(name)
        if not known:
            raise TaskSetError(f"no task set {name!r} under {self.root}")
        version = known[-1] if version is None else version
        if version not in known:
            raise TaskSetError(f"task set {name!r} has no version {version}; versions: {known}")
        folder = self.root / name
        manifest_path = folder / f"v{version:04d}.manifest.json"
        try:
            manifest = TaskSetManifest.model_validate_json(manifest_path.read_text())
        except ValidationError as exc:
            raise TaskSetTampered(f"{manifest_path}: manifest is not valid: {exc}") from exc
        tasks_path = folder / f"v{version:04d}.jsonl"
        tasks = parse_jsonl(tasks_path.read_text(), source=str(tasks_path))
        _verify(manifest, tasks, name=name, version=version, path=tasks_path)
        return TaskSet(manifest=manifest, tasks=tuple(tasks))

    @staticmethod
    def _claim(folder: Path, tasks_tmp: Path) -> int:
        # Exclusive: os.link refuses an existing name, so a racing publisher takes the next number.
        taken = [int(m.group(1)) for p in folder.iterdir() if (m := re.match(r"^v(\d{4,})\.", p.name))]
        version = max(taken, default=0) + 1
        while True:
            try:
                os.link(tasks_tmp, folder / f"v{version:04d}.jsonl")
                return version
            except FileExistsError:
                version += 1


def _verify(manifest: TaskSetManifest, tasks: list[Task], *, name: str, version: int, path: Path) -> None:
    where = f"{name} v{version}"
    if (manifest.name, manifest.version) != (name, version):
        raise TaskSetTampered(f"{where}: manifest says {manifest.name} v{manifest.version}")
    if manifest.content_hash != manifest_hash(manifest.task_hashes):
        raise TaskSetTampered(
            f"{where}: manifest content_hash does not match its task hashes (manifest edited)"
        )
    if len(manifest.task_ids) != len(manifest.task_hashes):
        raise TaskSetTampered(
            f"{where}: manifest lists {len(manifest.task_ids)} ids but {len(manifest.task_hashes)} hashes"
        )
    if len(tasks) != len(manifest.task_ids):
        raise TaskSetTampered(
            f"{where}: {path} holds {len(tasks)} tasks, the manifest lists {len(manifest.task_ids)}"
        )
    for line, (task, want_id, want_hash) in enumerate(
        zip(tasks, manifest.task_ids, manifest.task_hashes, strict=True), 1
    ):
        if task.task_id != want_id:
            raise TaskSetTampered(
                f"{where}: line {line} is task {task.task_id!r}, the manifest expects {want_id!r}"
            )
        got = task.compute_hash()
        if got != want_hash:
            raise TaskSetTampered(
                f"{where}: task {task.task_id!r} (line {line}) was modified: hash {got[:12]}…, "
                f"manifest {want_hash[:12]}…; refusing to load it"
            )


def _check_name(name: str) -> str:
    if not _NAME.match(name):
        raise TaskSetError(f"invalid task-set name {name!r}: use lowercase letters, digits, '.', '_' and '-'")
    return name


def _write_temp(folder: Path, text: str) -> Path:
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    return Path(tmp)
