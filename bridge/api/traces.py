"""The trace context each new episode runs in: the caller's `traceparent` header when it sent a
valid one, else the episode's own (`schemas.traceparent`). A route notes the header before the
episode starts; the recorder factory takes it when the episode's recorder is made, so every event
of the episode carries it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Annotated

from fastapi import Header

from schemas.traceparent import episode_traceparent, parse_traceparent

TraceparentHeader = Annotated[
    str | None,
    Header(
        description="W3C trace context: the episode's events join this trace (an invalid one is ignored)."
    ),
]
"""The `traceparent` request header of the routes that start episodes."""

MAX_WAITING = 10_000
"""Noted contexts kept for episodes whose recorder is not made yet (oldest dropped past this)."""


class TraceContexts:
    """Episode id → the `traceparent` its events carry. Thread-safe."""

    def __init__(self) -> None:
        self._waiting: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def expect(self, episode_id: str, header: str | None) -> None:
        """Note the caller's header for an episode about to start (an invalid one is ignored)."""
        parsed = parse_traceparent(header)
        if parsed is None:
            return
        with self._lock:
            self._waiting[episode_id] = parsed.header()
            while len(self._waiting) > MAX_WAITING:
                self._waiting.popitem(last=False)

    def take(self, episode_id: str) -> str:
        """The episode's `traceparent`: the caller's, or its own."""
        with self._lock:
            noted = self._waiting.pop(episode_id, None)
        return noted or episode_traceparent(episode_id)
