"""Where rollout events go: a JSONL file, or memory in tests.

Envs must not import the bridge's Kafka capture (design.md §2); whoever wants rollouts on Kafka
reads this file (or implements `EventSink`) in a package that may import both.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from schemas.codec import to_json
from schemas.envelope import Event


class EventSink(Protocol):
    """Receives every event of every episode, one episode at a time, in `seq` order."""

    def write(self, events: Sequence[Event]) -> None:
        """Append one episode's events."""
        ...

    def close(self) -> None:
        """Flush and release."""
        ...


class MemoryEventSink:
    """Keeps events in a list."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def write(self, events: Sequence[Event]) -> None:
        self.events.extend(events)

    def close(self) -> None:
        return None


class JsonlEventSink:
    """Appends events as CloudEvents structured JSON, one per line."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = self.path.open("ab")
        self._lock = threading.Lock()

    def write(self, events: Sequence[Event]) -> None:
        with self._lock:
            self._handle.write(b"".join(to_json(event) + b"\n" for event in events))

    def close(self) -> None:
        with self._lock:
            self._handle.close()

    def __enter__(self) -> JsonlEventSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
