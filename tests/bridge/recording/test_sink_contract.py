"""One contract, every EventSink: the in-memory fake and the SQLite outbox in both durability modes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.capture import SqliteOutbox
from bridge.recording import InMemoryEventSink, StreamConflict, StreamHead, UnknownStream
from schemas import GENESIS_HASH, EpisodeChain, Event
from schemas.events import Escalated


def chain(episode: str = "ep-1") -> EpisodeChain:
    return EpisodeChain(episode, tenant="clinic-a", source="loopline://tests/capture")


def escalation(n: int) -> Escalated:
    return Escalated(reason=f"reason {n}", trigger="rule")


class Memory:
    def __init__(self) -> None:
        self.sink = InMemoryEventSink()

    def stored(self, episode: str) -> list[tuple[str, int]]:
        return [(e.id, e.seq) for e in self.sink.of(episode)]

    def close(self) -> None:
        return None


class Outbox:
    def __init__(self, path: Path, durability: Any) -> None:
        self.sink = SqliteOutbox(path, durability=durability)

    def stored(self, episode: str) -> list[tuple[str, int]]:
        return [(row.event_id, row.seq) for row in self.sink.rows(episode)]

    def close(self) -> None:
        self.sink.close()


Backend = Memory | Outbox


@pytest.fixture(params=["memory", "outbox-process", "outbox-power"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    makers: dict[str, Callable[[], Backend]] = {
        "memory": Memory,
        "outbox-process": lambda: Outbox(tmp_path / "o.db", "process"),
        "outbox-power": lambda: Outbox(tmp_path / "o.db", "power"),
    }
    instance = makers[request.param]()
    yield instance
    instance.close()


def test_appended_events_are_stored_and_the_head_follows_them(backend: Backend) -> None:
    c = chain()
    events = [c.append(escalation(i)) for i in range(3)]
    for event in events:
        backend.sink.append(event)
    assert backend.stored("ep-1") == [(e.id, e.seq) for e in events]
    assert backend.sink.stream_head("ep-1") == StreamHead(3, events[-1].hash)


def test_appending_the_same_event_twice_stores_it_once(backend: Backend) -> None:
    event = chain().append(escalation(0))
    backend.sink.append(event)
    backend.sink.append(event)
    assert backend.stored("ep-1") == [(event.id, 0)]


def test_a_different_event_at_a_taken_position_is_a_fork(backend: Backend) -> None:
    first = chain().append(escalation(0))
    rival = chain().append(escalation(1))  # another writer's seq 0 of the same episode
    backend.sink.append(first)
    with pytest.raises(StreamConflict):
        backend.sink.append(rival)
    assert backend.stored("ep-1") == [(first.id, 0)]


def test_a_batch_with_a_fork_stores_nothing(backend: Backend) -> None:
    c = chain()
    first = c.append(escalation(0))
    backend.sink.append(first)
    later = [c.append(escalation(i)) for i in (1, 2)]
    rival = chain().append(escalation(9))
    batch: list[Event] = [*later, rival]
    with pytest.raises(StreamConflict):
        backend.sink.append_many(batch)
    assert backend.stored("ep-1") == [(first.id, 0)]


def test_a_stream_never_written_has_no_head(backend: Backend) -> None:
    backend.sink.append(chain("ep-other").append(escalation(0)))
    with pytest.raises(UnknownStream):
        backend.sink.stream_head("ep-1")


def test_streams_are_kept_apart(backend: Backend) -> None:
    a, b = chain("ep-a"), chain("ep-b")
    backend.sink.append_many([a.append(escalation(0)), b.append(escalation(0)), a.append(escalation(1))])
    assert [seq for _, seq in backend.stored("ep-a")] == [0, 1]
    assert [seq for _, seq in backend.stored("ep-b")] == [0]
    assert backend.sink.stream_head("ep-b").prevhash != GENESIS_HASH
