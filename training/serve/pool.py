"""The policies a server holds: the base model and every LoRA adapter loaded under a name.

Names are versions: a name answers with one adapter for the life of the server, unloaded or not.
Loading the same adapter (same files, by content hash) under its name again is a no-op (or a
reload after an unload); loading a different one under a name once used is refused, so a request
for `cycle-3` never gets what `cycle-4` learned. Publish a new adapter under a new name, and
unload the old name when nothing routes to it.

Before a model reads an adapter, the pool checks that its folder lies under the adapter root
(`training.serve.access`), copies its files once into a private folder (`training.serve.snapshot`),
and checks on that copy that its weights are whole safetensors (`training.serve.weights`) and,
given the release store's lookup, that its fingerprint is the one registered for the name. The
model loads from the copy, so files swapped in the adapter root after the check are never read.
"""

from __future__ import annotations

import hashlib
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from engine import Policy
from training.serve.access import AdapterPathError, adapter_folder
from training.serve.snapshot import SnapshotError, private_copy, private_root
from training.serve.weights import weights_problem

P = TypeVar("P")
"""What the pool holds per name: an engine `Policy` in serve-policy, vLLM's handle in the gate."""

Loader = Callable[[Path | None, str], Policy]
"""(adapter folder or None for the base, name) → policy."""

FingerprintLookup = Callable[[str], str | None]
"""Served name → the fingerprint the release store registered for it, or None when none is."""

ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors", "adapter_model.bin", "vocab.json")
"""The files that make an adapter what it is (weights, config, and a structured policy's vocabulary)."""


class AdapterError(Exception):
    """An adapter request that cannot be met; `status` is the HTTP status it answers with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def adapter_fingerprint(folder: Path) -> str:
    """SHA-256 over the adapter's defining files (name and bytes), so a copy has the same print."""
    if not (folder / "adapter_config.json").is_file():
        raise AdapterError(400, f"{folder} holds no LoRA adapter (adapter_config.json missing)")
    digest = hashlib.sha256()
    for name in ADAPTER_FILES:
        path = folder / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class Served(Generic[P]):
    """One model the server answers as."""

    name: str
    policy: P
    folder: Path | None
    """The adapter folder asked for (None for the base model)."""
    fingerprint: str | None
    load_seconds: float
    created: int
    """Unix time it was loaded."""
    copy: Path | None = None
    """The private copy of the adapter's files it was checked and loaded from."""


class PolicyPool(Generic[P]):
    """Name → served policy, safe to use from the server's worker threads."""

    def __init__(
        self,
        load: Callable[[Path | None, str], P],
        base_name: str,
        *,
        root: Path,
        registered: FingerprintLookup | None = None,
        private: Path | None = None,
    ) -> None:
        """`root`: the folder every adapter lies under; `registered`: the release store's
        fingerprints by served name (None: no registry is consulted); `private`: where the copies
        adapters load from are kept (default: a fresh folder only this user can read)."""
        self._load = load
        self.base_name = base_name
        self.root = root
        self.private = private if private is not None else private_root()
        self._registered = registered
        self._used: dict[str, str] = {}
        """Every adapter name ever loaded → its fingerprint (kept after an unload)."""
        started = time.perf_counter()
        base = load(None, base_name)
        self._served = {
            base_name: Served(base_name, base, None, None, time.perf_counter() - started, int(time.time()))
        }
        self._lock = threading.Lock()
        self._run_lock = threading.Lock()  # the CPU models are not safe to run from two threads at once

    def names(self) -> list[str]:
        """Every name the server answers as, the base first."""
        with self._lock:
            return list(self._served)

    def get(self, name: str) -> Served[P]:
        """The policy behind `name`; raises `AdapterError(404)` when none is loaded."""
        with self._lock:
            served = self._served.get(name)
            if served is None:
                raise AdapterError(404, f"model {name!r} is not loaded (have {', '.join(self._served)})")
            return served

    def served(self) -> list[Served[P]]:
        """Every served model."""
        with self._lock:
            return list(self._served.values())

    def load(self, name: str, requested: str | Path) -> tuple[Served[P], bool]:
        """Load the adapter at `requested` (under the root) as `name`; returns it and whether it
        was newly loaded."""
        if name == self.base_name:
            raise AdapterError(400, f"{name!r} is the base model's name")
        try:
            folder = adapter_folder(self.root, str(requested), ADAPTER_FILES)
            copy = private_copy(folder, ADAPTER_FILES, root=self.root, into=self.private)
        except (AdapterPathError, SnapshotError) as exc:
            raise AdapterError(403, str(exc)) from None
        try:
            served, fresh = self._load_copy(name, folder, copy)
        except BaseException:
            shutil.rmtree(copy, ignore_errors=True)
            raise
        if not fresh:
            shutil.rmtree(copy, ignore_errors=True)
        return served, fresh

    def _load_copy(self, name: str, folder: Path, copy: Path) -> tuple[Served[P], bool]:
        """Check the private `copy` of `folder`'s files and load the model from it."""
        if not (copy / "adapter_config.json").is_file():
            raise AdapterError(400, f"{folder} holds no LoRA adapter (adapter_config.json missing)")
        fingerprint = adapter_fingerprint(copy)
        problem = weights_problem(copy)
        if problem is not None:
            problem = problem.replace(str(copy), str(folder))
            raise AdapterError(400, f"cannot load {folder} as {name!r}: {problem}")
        self._check_registered(name, fingerprint)
        existing = self._same_or_conflict(name, folder, fingerprint)
        if existing is not None:
            return existing, False
        started = time.perf_counter()
        try:
            policy = self._load(copy, name)
        except Exception as exc:  # a loader reads files it was handed: whatever breaks, it is the files
            raise AdapterError(400, f"cannot load {folder} as {name!r}: {type(exc).__name__}: {exc}") from exc
        served = Served(
            name, policy, folder, fingerprint, time.perf_counter() - started, int(time.time()), copy
        )
        with self._lock:
            again = self._served.get(name)
            if again is not None:  # another request loaded this name meanwhile
                if again.fingerprint != fingerprint:
                    raise AdapterError(409, _conflict(name, again))
                return again, False
            if self._used.get(name, fingerprint) != fingerprint:
                raise AdapterError(409, _reused(name, self._used[name]))
            self._served[name] = served
            self._used[name] = fingerprint
        return served, True

    def _check_registered(self, name: str, fingerprint: str) -> None:
        if self._registered is None:
            return
        try:
            expected = self._registered(name)
        except Exception as exc:  # the store's driver errors vary (SQLite, Postgres): refuse, say why
            raise AdapterError(
                503, f"the release store cannot be read, so {name!r} is not loaded: {exc}"
            ) from exc
        if expected is None:
            raise AdapterError(403, f"no adapter is registered in the release store under {name!r}")
        if expected != fingerprint:
            raise AdapterError(
                409,
                f"the files for {name!r} (sha256 {fingerprint[:12]}) are not what the release store "
                f"registered under that name (sha256 {expected[:12]})",
            )

    def _same_or_conflict(self, name: str, folder: Path, fingerprint: str) -> Served[P] | None:
        with self._lock:
            existing = self._served.get(name)
            used = self._used.get(name)
        if existing is None:
            if used is not None and used != fingerprint:
                raise AdapterError(409, _reused(name, used))
            return None
        if existing.fingerprint != fingerprint:
            raise AdapterError(409, _conflict(name, existing))
        return existing

    def unload(self, name: str) -> None:
        """Stop answering as `name` (never the base)."""
        with self._lock:
            if name == self.base_name or name not in self._served:
                raise AdapterError(404, f"no adapter {name!r} is loaded")
            served = self._served.pop(name)
        release = getattr(served.policy, "release", None)  # a shared base frees the adapter's weights
        if callable(release):
            release()
        if served.copy is not None:
            shutil.rmtree(served.copy, ignore_errors=True)

    @contextmanager
    def running(self) -> Iterator[None]:
        """Hold while a model runs: one inference at a time."""
        with self._run_lock:
            yield


def _conflict(name: str, existing: Served[Any]) -> str:
    return (
        f"{name!r} already serves another adapter ({existing.folder}, sha256 {str(existing.fingerprint)[:12]}); "
        "adapter names are versions: load the new adapter under a new name"
    )


def _reused(name: str, fingerprint: str) -> str:
    return (
        f"{name!r} served other weights before (sha256 {fingerprint[:12]}); a name once used never "
        "points at other weights, even after an unload: load the new adapter under a new name"
    )
