"""The archive against the event topic it was written from. The topic is the broker's record of
every event the stream worker was given, off the archive's host: what the archive claims came
through it must be there, and what is there must be archived.

- **Positions**: an archived event that names a position on the topic must be the event at that
  position (the same source and id). A re-signed event appended with a made-up position is named
  at once, not only once the checkpoint lag has passed; and an event past its producer's newest
  checkpoint counts as in flight only when the topic holds it (`TopicRecord.holds`).
- **Nothing lost**: every event on the topic is archived (by source and id, at any position:
  delivery is at least once) or dead-lettered (its position named on the dead-letter topic). An
  event appended through the topic and deleted again before a checkpoint covered it, or a real
  event deleted before the next checkpoint, is named for as long as the topic keeps it.

Positions below what a partition still keeps (retention) cannot be checked and are not findings
(retention never removes a partition's active segment, so a partition that ever held an event
still says where it starts).
Run it once the worker has caught up: an event on the topic not yet archived reads as lost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import sqlalchemy as sa

from bridge.store.archive import SqlEventArchive
from bridge.store.tables import ARCHIVE_TABLE
from schemas.codec import EventDecodeError, structured_from_kafka

Position = tuple[int, int]
"""(partition, offset) on the event topic."""


@dataclass(frozen=True)
class TopicEvent:
    """An event as the topic holds it: its identity and where its stream puts it."""

    source: str
    event_id: str
    stream: str
    seq: int


@dataclass
class TopicRecord:
    """What one read of the event topic (and of its dead letters) found."""

    topic: str
    events: dict[Position, TopicEvent] = field(default_factory=dict)
    first_offset: dict[int, int] = field(default_factory=dict)
    """The lowest offset each partition still keeps."""
    dead: set[Position] = field(default_factory=set)
    """Positions of the topic's messages the worker dead-lettered."""
    identities: set[tuple[str, str]] = field(default_factory=set)
    """(source, id) of every event on the topic."""

    @classmethod
    def read(
        cls,
        topic: str,
        messages: Iterable[tuple[int, int, bytes | None, Sequence[tuple[str, bytes | str | None]]]],
        dead_letters: Iterable[Sequence[tuple[str, bytes | str | None]]] = (),
    ) -> TopicRecord:
        """The record of `messages` ((partition, offset, value, headers) of the event topic, from
        its first kept offset) and of the `dead_letters`' headers (only those of `topic` count)."""
        record = cls(topic)
        for partition, offset, value, headers in messages:
            record.first_offset[partition] = min(offset, record.first_offset.get(partition, offset))
            try:
                doc = structured_from_kafka(value, headers)
                event = TopicEvent(str(doc["source"]), str(doc["id"]), str(doc["episodeid"]), int(doc["seq"]))
            except (EventDecodeError, KeyError, TypeError, ValueError):
                continue  # not an event: the worker dead-letters it, nothing to archive
            record.events[(partition, offset)] = event
            record.identities.add((event.source, event.event_id))
        for headers in dead_letters:
            named = {k: _text(v) for k, v in headers if k.startswith("dlq_")}
            if named.get("dlq_topic") == topic:
                try:
                    record.dead.add((int(named.get("dlq_partition", "")), int(named.get("dlq_offset", ""))))
                except ValueError:
                    continue
        return record

    def holds(self, source: str, event_id: str) -> bool:
        """Whether the topic holds this event (at any position)."""
        return (source, event_id) in self.identities

    def forgotten(self, position: Position) -> bool:
        """Whether `position` lies below what its partition still keeps (retention took it)."""
        first = self.first_offset.get(position[0])
        return first is not None and position[1] < first


def audit_topic(archive: SqlEventArchive, record: TopicRecord) -> list[str]:
    """Archived events whose topic position holds another event or none, and events on the topic
    neither archived nor dead-lettered."""
    a = ARCHIVE_TABLE
    query = sa.select(
        a.c.episodeid,
        a.c.seq,
        a.c.source,
        a.c.event_id,
        a.c.kafka_topic,
        a.c.kafka_partition,
        a.c.kafka_offset,
    ).order_by(a.c.episodeid, a.c.seq)
    findings: list[str] = []
    archived: set[tuple[str, str]] = set()
    with archive.engine.connect() as conn:
        for row in conn.execution_options(yield_per=2000).execute(query):
            archived.add((row.source, row.event_id))
            if row.kafka_topic != record.topic or row.kafka_partition is None or row.kafka_offset is None:
                continue
            position = (int(row.kafka_partition), int(row.kafka_offset))
            there = record.events.get(position)
            if there is not None and (there.source, there.event_id) == (row.source, row.event_id):
                continue
            if there is None and record.forgotten(position):
                continue  # beyond retention: the topic no longer says
            what = "no event" if there is None else f"event {there.event_id} of stream {there.stream}"
            findings.append(
                f"stream {row.episodeid} seq {row.seq}: topic_position_faked: it names partition "
                f"{position[0]} offset {position[1]} of {record.topic}, which holds {what}"
            )
    for (partition, offset), event in sorted(record.events.items()):
        if (event.source, event.event_id) in archived or (partition, offset) in record.dead:
            continue
        findings.append(
            f"stream {event.stream} seq {event.seq}: deleted_from_archive: {record.topic} holds event "
            f"{event.event_id} at partition {partition} offset {offset}, the archive does not and no "
            "dead letter names it (deleted, or the worker has not caught up)"
        )
    return findings


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
