"""The stream store (a sink that knows where each stream continues) and its in-memory fake; the
`EventSink` port itself is `engine.sink`'s.

Every implementation keeps one contract, checked by one test suite against each: `append` returns
only once the event is durable; the same event again at its (stream, seq) does nothing; a
*different* event at a taken (stream, seq) is a fork and raises `StreamConflict`; `stream_head`
gives the (next_seq, prevhash) a writer resumes a stream from.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from engine.sink import EventSink
from schemas import GENESIS_HASH, Event


class CaptureUnavailable(RuntimeError):
    """Events cannot be stored right now (a full disk, an I/O error, a closed store). Nothing was
    recorded, so the caller must not act as if it had been: the bridge answers 503."""


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


class StreamStore(EventSink, Protocol):
    """A sink that also says where each stream continues (the outbox, the fake)."""

    def stream_head(self, episode_id: str) -> StreamHead:
        """(next_seq, prevhash) of the stream; `UnknownStream` if none of it is stored."""
        ...


class InMemoryEventSink:
    """The fake: events in a list, with the outbox's idempotency and fork rules."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._held: dict[tuple[str, int], str] = {}
        self._lock = threading.Lock()

    def append(self, event: Event, doc: bytes | None = None) -> None:
        """Store `event` (no-op if this very event is stored; `StreamConflict` on a fork)."""
        self.append_many([event])

    def append_many(self, events: Sequence[Event]) -> None:
        """Store all of `events` or, on a conflict, none of them."""
        with self._lock:
            held, fresh = dict(self._held), []
            for event in events:
                holder = held.get((event.episodeid, event.seq))
                if holder is None:
                    held[(event.episodeid, event.seq)] = event.id
                    fresh.append(event)
                elif holder != event.id:
                    raise StreamConflict(
                        f"{event.episodeid}#{event.seq} holds event {holder}, not {event.id}"
                    )
            self.events.extend(fresh)
            self._held = held

    def stream_head(self, episode_id: str) -> StreamHead:
        """(next_seq, prevhash) after the stream's last stored event."""
        mine = self.of(episode_id)
        if not mine:
            raise UnknownStream(episode_id)
        return StreamHead(mine[-1].seq + 1, mine[-1].hash)

    def of(self, episode_id: str) -> list[Event]:
        """The stored events of one stream, in seq order."""
        with self._lock:
            return sorted((e for e in self.events if e.episodeid == episode_id), key=lambda e: e.seq)
