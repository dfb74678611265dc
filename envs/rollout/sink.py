"""Where rollout events go: a JSONL file, or memory in tests (both `engine.EventSink`s).

Envs must not import the bridge's Kafka capture (design.md §2); whoever wants rollouts on Kafka
reads this file (or hands the bridge's outbox, also an `EventSink`) in a package that may import both.
"""

from __future__ import annotations

import threading
from pathlib import Path

from schemas.codec import to_json
from schemas.envelope import Event


class MemoryEventSink:
    """Keeps events in a list."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def append(self, event: Event, doc: bytes | None = None) -> None:
        self.events.append(event)


class JsonlEventSink:
    """Appends events as CloudEvents structured JSON, one per line."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = self.path.open("ab")
        self._lock = threading.Lock()

    def append(self, event: Event, doc: bytes | None = None) -> None:
        with self._lock:
            self._handle.write(to_json(event) + b"\n")

    def close(self) -> None:
        with self._lock:
            self._handle.close()

    def __enter__(self) -> JsonlEventSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
