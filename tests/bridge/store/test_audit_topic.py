"""The archive against the event topic: every position it names holds its event, and every event on
the topic is archived or dead-lettered (a real SQLite archive; the topic as the reader returns it)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bridge.store import ArchiveRecord, SqlEventArchive
from bridge.store.audit_topic import TopicRecord, audit_topic
from bridge.streams.deadletter import DeadLetter
from schemas import Event
from schemas.codec import to_structured
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.messages import TOPIC, message

OFFSET = 100
"""The partition's first kept offset: what came before, retention took."""


def _archive(tmp_path: Path, events: list[Event], offsets: list[int | None]) -> SqlEventArchive:
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    archive.append(
        [
            ArchiveRecord(e, to_structured(e), topic=None if o is None else TOPIC, partition=0, offset=o)
            for e, o in zip(events, offsets, strict=True)
        ]
    )
    return archive


def _topic(events: list[Event], dead: Sequence[int] = ()) -> TopicRecord:
    """The topic holding `events` from `OFFSET` on, the messages at `dead` dead-lettered."""
    messages = [message(e, OFFSET + i) for i, e in enumerate(events)]
    now = datetime.now(UTC)
    letters = [
        DeadLetter.build(messages[i], "bad_mac", "forged", stage="admission", failed_at=now) for i in dead
    ]
    return TopicRecord.read(
        TOPIC, [(m.partition, m.offset, m.value, m.headers) for m in messages], [d.headers for d in letters]
    )


@pytest.fixture
def events() -> list[Event]:
    return typical_episode("ep-1").events


def test_an_archive_written_from_the_topic_passes(tmp_path: Path, events: list[Event]) -> None:
    archive = _archive(tmp_path, events, [OFFSET + i for i in range(len(events))])
    assert audit_topic(archive, _topic(events)) == []


def test_a_position_that_holds_another_event_or_none_is_named_but_one_retention_took_is_not(
    tmp_path: Path, events: list[Event]
) -> None:
    offsets: list[int | None] = [OFFSET + i for i in range(len(events))]
    offsets[1], offsets[2], offsets[3] = OFFSET + 2, 10**9, OFFSET - 50  # another's, past the end, expired
    archive = _archive(tmp_path, events, offsets)
    topic = _topic(events)
    findings = audit_topic(archive, topic)
    faked = [f for f in findings if "topic_position_faked" in f]
    assert [f.split(":")[0] for f in faked] == ["stream ep-1 seq 1", "stream ep-1 seq 2"], findings
    assert "holds event" in faked[0] and "holds no event" in faked[1]
    assert topic.forgotten((0, OFFSET - 50)) and not topic.forgotten((0, OFFSET))


def test_an_event_on_the_topic_that_the_archive_lost_is_named_unless_dead_lettered(
    tmp_path: Path, events: list[Event]
) -> None:
    kept = events[:-2]
    archive = _archive(tmp_path, kept, [OFFSET + i for i in range(len(kept))])
    findings = audit_topic(archive, _topic(events, dead=[len(events) - 1]))
    (lost,) = findings
    assert lost.startswith(f"stream ep-1 seq {len(events) - 2}: deleted_from_archive: {TOPIC} holds event")
    assert (
        events[-2].id in lost
        and audit_topic(archive, _topic(events, dead=[len(events) - 2, len(events) - 1])) == []
    )


def test_a_message_that_is_no_event_is_not_expected_in_the_archive(
    tmp_path: Path, events: list[Event]
) -> None:
    archive = _archive(tmp_path, events[:1], [OFFSET])
    record = TopicRecord.read(TOPIC, [(0, OFFSET, message(events[0]).value, message(events[0]).headers),
                                      (0, OFFSET + 1, b"not json", [])])  # fmt: skip
    assert audit_topic(archive, record) == [] and record.first_offset == {0: OFFSET}
