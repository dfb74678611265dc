"""The outbox's stored form: the table, its statements, rows, and their Kafka binary-mode records.

A row holds the event in CloudEvents structured JSON: from the recorder, the canonical bytes the
chain hashed plus `hash` (`SealedEvent.doc`, so the agent's thread serialises each event once);
from other writers, what pydantic writes. The relay turns it into Kafka binary mode with `kafka_record`,
which works on the JSON alone, without the event registry: an event written by an older release
still ships unchanged after an upgrade, and the hash chain covers exactly what is shipped.

Idempotency is keyed on the stream position: one unique index on (episode_id, seq) both refuses
forks and makes a repeated append a no-op when the stored event has the same id. A second unique
index on the event id alone would cost about 15 us per append (measured, docs/capture.md) and add
nothing: ids are fresh UUIDv7s, and consumers deduplicate on (source, id) anyway.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bridge.capture.sink import StreamConflict
from schemas import Event, KafkaRecord, to_json
from schemas.chain import ATTRIBUTES, canonical_json
from schemas.codec import CONTENT_TYPE

Row = tuple[Any, ...]
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    pos INTEGER PRIMARY KEY,          -- append order; rowids only grow, see PRUNE
    episode_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    doc BLOB NOT NULL,                -- CloudEvents structured JSON, as written
    appended_at REAL NOT NULL,
    delivered_at REAL,                -- set from the broker's delivery report, never before
    kafka_partition INTEGER,
    kafka_offset INTEGER,
    UNIQUE (episode_id, seq)          -- forks are refused; a repeated append is a no-op
)
"""
INSERT = (
    "INSERT INTO outbox (episode_id, seq, event_id, hash, doc, appended_at) VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (episode_id, seq) DO NOTHING"
)
COLUMNS = "pos, event_id, episode_id, seq, doc, appended_at, delivered_at, kafka_partition, kafka_offset"
PRUNE = """
DELETE FROM outbox WHERE pos IN (
    SELECT o.pos FROM outbox o
    WHERE o.delivered_at IS NOT NULL AND o.delivered_at < :cutoff
      AND o.pos < (SELECT max(pos) FROM outbox)
      AND (o.delivered_at < :heads_cutoff
           OR EXISTS (SELECT 1 FROM outbox n WHERE n.episode_id = o.episode_id AND n.seq > o.seq))
    LIMIT :limit)
"""
# The newest row is never pruned: SQLite gives a new row max(rowid) + 1, so keeping it keeps
# `pos` strictly increasing for the relay. An episode's last event is kept (until heads_cutoff)
# so `stream_head` can still resume the stream when its outcome arrives days later.

_HEADERS = tuple((name, f"ce_{name}") for name in (*ATTRIBUTES, "hash") if name != "datacontenttype")
_CONTENT_TYPE = CONTENT_TYPE.encode()


def kafka_record(doc: Mapping[str, Any]) -> KafkaRecord:
    """Kafka binary mode of a structured-mode event, as written: what `schemas.to_kafka` makes of
    the event, computed from its JSON alone (a test holds the two equal for every event type)."""
    return _record(doc, canonical_json(doc["data"]))


def _record(attributes: Mapping[str, Any], value: bytes) -> KafkaRecord:
    headers = [("content-type", _CONTENT_TYPE)]
    headers += [
        (header, (found if isinstance(found, str) else str(found)).encode())
        for name, header in _HEADERS
        if (found := attributes.get(name)) is not None
    ]
    return KafkaRecord(key=str(attributes["episodeid"]).encode(), value=value, headers=headers)


_SEALED_HEAD = b'{"data":'
_SEALED_DATA_END = b',"datacontenttype":'


def kafka_record_of(doc: bytes) -> KafkaRecord:
    """`kafka_record` of a stored row's JSON, without decoding and re-encoding `data` when the row
    holds a chain-sealed document (`SealedEvent.doc`).

    A sealed document is canonical JSON with `hash` appended: it starts with `data`, whose bytes
    are already the canonical value to ship, and every attribute after `data` is a flat string,
    integer or null. So the last `,"datacontenttype":` is where `data` ends (inside a string a
    quote would be escaped; a nested key of that name comes earlier), and only the short tail of
    attributes needs parsing. This is the relay's per-row work, on the agent's GIL.
    """
    if doc.startswith(_SEALED_HEAD):
        end = doc.rfind(_SEALED_DATA_END)
        if end > 0:
            attributes = json.loads("{" + doc[end + 1 :].decode())  # str: json skips sniffing bytes
            return _record(attributes, doc[len(_SEALED_HEAD) : end])
    return kafka_record(json.loads(doc))


@dataclass(frozen=True)
class OutboxRow:
    """One stored event."""

    pos: int
    event_id: str
    episode_id: str
    seq: int
    doc: bytes
    appended_at: float
    delivered_at: float | None
    partition: int | None
    offset: int | None

    def structured(self) -> dict[str, Any]:
        """The event in CloudEvents structured form, as written (hash-verifiable)."""
        loaded: dict[str, Any] = json.loads(self.doc)
        return loaded

    def record(self) -> KafkaRecord:
        """The Kafka message this row is produced as."""
        return kafka_record_of(self.doc)


@dataclass(frozen=True)
class DeliveryMark:
    """A broker delivery report for one outbox row."""

    pos: int
    partition: int
    offset: int
    delivered_at: float


def encode_row(event: Event, appended_at: float, doc: bytes | None = None) -> Row:
    """The outbox row of `event` (`doc`: its structured JSON, when the chain already made it)."""
    return (event.episodeid, event.seq, event.id, event.hash, doc or to_json(event), appended_at)


def decode_row(values: Sequence[Any]) -> OutboxRow:
    """An `OutboxRow` from a `SELECT COLUMNS` result."""
    return OutboxRow(*values)


def insert_rows(conn: sqlite3.Connection | sqlite3.Cursor, rows: Sequence[Row]) -> None:
    """Insert `rows`; positions already holding the same event are skipped, others are forks.

    Inside a transaction the caller rolls back on `StreamConflict`; a lone row needs none (an
    ignored insert changed nothing).
    """
    cursor = conn.executemany(INSERT, rows) if len(rows) != 1 else conn.execute(INSERT, rows[0])
    if cursor.rowcount == len(rows):
        return
    for episode_id, seq, event_id, *_ in rows:  # rare: a retry or a fork; find out which
        stored = conn.execute(
            "SELECT event_id FROM outbox WHERE episode_id = ? AND seq = ?", (episode_id, seq)
        ).fetchone()
        if stored is not None and stored[0] != event_id:
            raise StreamConflict(f"{episode_id}#{seq} already holds event {stored[0]}, not {event_id}")
