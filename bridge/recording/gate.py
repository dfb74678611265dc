"""`GatedSink`: a stream store that stops taking events when the process drains.

While a bridge shuts down, episodes still running past the drain deadline must not append behind
the record that closes them. Their recorders write through this gate; once it is closed every
append raises `CaptureUnavailable` (the runtime then stops before its next tool call, as it does
on a full disk), so the closing `episode.interrupted` can be written straight to the store with no
fork of the stream.
"""

from __future__ import annotations

import threading

from bridge.recording.sink import CaptureUnavailable, StreamHead, StreamStore
from schemas import Event


class GatedSink:
    """Passes appends to `store` until `close_gate`; reads always pass."""

    def __init__(self, store: StreamStore) -> None:
        self._store = store
        self._closed_because: str | None = None
        self._lock = threading.Lock()

    def append(self, event: Event, doc: bytes | None = None) -> None:
        """Store `event` in the wrapped store, unless the gate is closed (`CaptureUnavailable`)."""
        with self._lock:
            if self._closed_because is not None:
                raise CaptureUnavailable(f"capture takes no more events: {self._closed_because}")
            self._store.append(event, doc)

    def stream_head(self, episode_id: str) -> StreamHead:
        """The wrapped store's head of the stream."""
        return self._store.stream_head(episode_id)

    def close_gate(self, reason: str) -> None:
        """Refuse every later append with `reason`; an append in progress finishes first."""
        with self._lock:
            self._closed_because = reason

    @property
    def closed(self) -> bool:
        """Whether the gate refuses appends."""
        return self._closed_because is not None
