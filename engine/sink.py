"""The `EventSink` port: where recorded events go, one at a time, in each stream's `seq` order.

The durable outbox (`bridge.capture`), its in-memory fake (`bridge.recording.InMemoryEventSink`)
and the rollout files (`envs.rollout.JsonlEventSink`) implement it.
"""

from __future__ import annotations

from typing import Protocol

from schemas.envelope import Event


class EventSink(Protocol):
    """Destination of recorded events."""

    def append(self, event: Event, doc: bytes | None = None) -> None:
        """Store `event`; return once it is durable. `doc` is its JSON as the chain sealed it
        (`SealedEvent.doc`), for a sink that stores JSON."""
        ...
