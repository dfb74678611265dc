"""The `EventSink` port (where recorded events go) and its in-memory fake.

Contract, shared by every implementation and checked by one test suite against each:
- `append` returns only once the event is durable (for the fake: stored in the list);
- appending an event that is already stored at its (stream, seq) does nothing (idempotent retry);
- a *different* event at a (stream, seq) already taken is a fork and raises `StreamConflict`;
- `stream_head` gives the (next_seq, prevhash) a writer resumes a stream from.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from schemas import GENESIS_HASH, Event


class CaptureUnavailable(RuntimeError):
    """Events cannot be stored right now (the outbox or the vault failed: a full disk, an I/O error,
    a closed store). Nothing was recorded, so the caller must not act as if it had been: the bridge
    answers 503 and does not run the tool or the episode on without a record."""


class StreamConflict(Exception):
    """Another event already holds this (stream, seq): two writers forked the stream."""


class UnknownStream(LookupError):
    """The sink holds no event of this stream (never written here, or pruned long ago)."""


class StreamHead(NamedTuple):
    """Where a stream continues: the next `seq` and the `hash` of its last event."""

    next_seq: int
    prevhash: str


GENESIS_HEAD = StreamHead(0, GENESIS_HASH)
"""The head of a stream nothing was written to yet."""


class EventSink(Protocol):
    """Durable destination of recorded events."""

    def append(self, event: Event, doc: bytes | None = None) -> None:
        """Store `event`; returns only once it is durable.

        `doc` is the event's structured JSON as the chain sealed it (`SealedEvent.doc`), when the
        caller has it: a sink that stores JSON keeps it instead of serialising the event again.
        """
        ...


class StreamHeads(Protocol):
    """Answers where a stream continues, for writers that resume one (outcome.observed)."""

    def stream_head(self, episode_id: str) -> StreamHead:
        """(next_seq, prevhash) of the stream; `UnknownStream` if none of it is stored."""
        ...


class StreamStore(EventSink, StreamHeads, Protocol):
    """A sink that can also say where each stream continues (the outbox, the fake)."""


class InMemoryEventSink:
    """The fake: events in a list, with the same idempotency and fork rules as the outbox."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._by_position: dict[tuple[str, int], str] = {}
        self._lock = threading.Lock()

    def append(self, event: Event, doc: bytes | None = None) -> None:
        """Store `event` (no-op if this very event is stored; `StreamConflict` on a fork)."""
        self.append_many([event])

    def append_many(self, events: Sequence[Event]) -> None:
        """Store all of `events` or, on a conflict, none of them."""
        with self._lock:
            fresh: list[Event] = []
            taken = dict(self._by_position)
            for event in events:
                position = (event.episodeid, event.seq)
                holder = taken.get(position)
                if holder == event.id:
                    continue
                if holder is not None:
                    raise StreamConflict(f"{position} already holds event {holder}, not {event.id}")
                taken[position] = event.id
                fresh.append(event)
            self.events.extend(fresh)
            self._by_position = taken

    def stream_head(self, episode_id: str) -> StreamHead:
        """(next_seq, prevhash) after the stream's last stored event."""
        with self._lock:
            last = max(
                (e for e in self.events if e.episodeid == episode_id), key=lambda e: e.seq, default=None
            )
        if last is None:
            raise UnknownStream(episode_id)
        return StreamHead(last.seq + 1, last.hash)

    def of(self, episode_id: str) -> list[Event]:
        """The stored events of one stream, in seq order."""
        with self._lock:
            return sorted((e for e in self.events if e.episodeid == episode_id), key=lambda e: e.seq)
