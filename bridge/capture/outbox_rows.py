"""The outbox's stored form: the tables, their statements, rows, and their Kafka binary-mode records.

An `outbox` row holds the event in CloudEvents structured JSON: from the recorder, the canonical bytes the
chain hashed plus `hash` (`SealedEvent.doc`, so the agent's thread serialises each event once);
from other writers, what pydantic writes. The relay turns it into Kafka binary mode with `kafka_record`,
which works on the JSON alone, without the event registry: an event written by an older release
still ships unchanged after an upgrade, and the hash chain covers exactly what is shipped.

Idempotency is keyed on the stream position: one unique index on (episode_id, seq) both refuses
forks and makes a repeated append a no-op when the stored event has the same id. A second unique
index on the event id alone would cost about 15 us per append (measured, docs/capture.md) and add
nothing: ids are fresh UUIDv7s, and consumers deduplicate on (source, id) anyway.

Delivery reports live in a `delivery` table keyed by `pos`, not in the outbox row (see SCHEMA).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from bridge.capture.sink import StreamConflict
from schemas import Event, KafkaRecord, to_json
from schemas.chain import ATTRIBUTES, canonical_json
from schemas.codec import CONTENT_TYPE

Row = tuple[Any, ...]
SCHEMA_VERSION = 3

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS outbox (
    pos INTEGER PRIMARY KEY,          -- append order; rowids only grow, see PRUNABLE
    episode_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    doc BLOB NOT NULL,                -- CloudEvents structured JSON, as written
    appended_at REAL NOT NULL,
    UNIQUE (episode_id, seq)          -- forks are refused; a repeated append is a no-op
)""",
    """
CREATE TABLE IF NOT EXISTS delivery (  -- the final word on an outbox row, never before it came
    pos INTEGER PRIMARY KEY,          -- the outbox row
    kafka_partition INTEGER,          -- where the broker put it (NULL when rejected)
    kafka_offset INTEGER,
    delivered_at REAL NOT NULL,       -- when the report came
    rejected TEXT                     -- why it can never be produced (too large, unreadable), else NULL
)""",
    """
CREATE TABLE IF NOT EXISTS journal (  -- how far the journal in front of this file is ingested
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL,      -- journal.py: the file's generation
    ingested INTEGER NOT NULL         -- offset after the last frame ingested into `outbox`
)""",
)
# Why a table of its own: a report marked in the outbox row rewrote that row's page, a 2 KB WAL frame
# for every 3 events and about 3 us each under the lock the agent appends through. A delivery row is
# 20 bytes appended in pos order: a page holds about 100 (docs/capture.md).

MIGRATIONS = {
    1: (  # v1 kept the delivery report in the outbox row itself
        "INSERT OR IGNORE INTO delivery (pos, kafka_partition, kafka_offset, delivered_at)"
        " SELECT pos, kafka_partition, kafka_offset, delivered_at"
        " FROM outbox WHERE delivered_at IS NOT NULL",
        "ALTER TABLE outbox DROP COLUMN delivered_at",
        "ALTER TABLE outbox DROP COLUMN kafka_partition",
        "ALTER TABLE outbox DROP COLUMN kafka_offset",
    ),
    2: (),  # v3 only adds the `journal` table, which SCHEMA creates
}
"""Statements that bring an outbox file of an older schema version to this one (after SCHEMA)."""

INSERT = (
    "INSERT INTO outbox (episode_id, seq, event_id, hash, doc, appended_at) VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (episode_id, seq) DO NOTHING"
)
MARK = (
    "INSERT OR IGNORE INTO delivery (pos, kafka_partition, kafka_offset, delivered_at, rejected)"
    " VALUES (?, ?, ?, ?, ?)"
)
"""The final word on a row; the first one stands (a second is a duplicate send's report)."""
INGESTED = (
    "INSERT INTO journal (id, generation, ingested) VALUES (1, ?, ?)"
    " ON CONFLICT (id) DO UPDATE SET generation = excluded.generation, ingested = excluded.ingested"
)
"""Where the journal is ingested up to, committed in the same transaction as the rows."""
UNSETTLED = "NOT EXISTS (SELECT 1 FROM delivery d WHERE d.pos = o.pos)"
"""`WHERE` clause of an outbox row `o` still waiting for its final word, a delivery report or a
rejection: what the relay has left to produce (one primary-key probe)."""
COLUMNS = (
    "o.pos, o.event_id, o.episode_id, o.seq, o.doc, o.appended_at,"
    " d.delivered_at, d.kafka_partition, d.kafka_offset, d.rejected"
)
ROWS = f"SELECT {COLUMNS} FROM outbox o LEFT JOIN delivery d ON d.pos = o.pos"
"""Stored rows with their delivery reports (add WHERE / ORDER BY)."""
PRUNABLE = """
SELECT o.pos FROM outbox o JOIN delivery d ON d.pos = o.pos
WHERE d.delivered_at < :cutoff AND d.rejected IS NULL
  AND o.pos < (SELECT max(pos) FROM outbox)
  AND (d.delivered_at < :heads_cutoff
       OR EXISTS (SELECT 1 FROM outbox n WHERE n.episode_id = o.episode_id AND n.seq > o.seq))
LIMIT :limit
"""
# Rejected rows are never pruned: they wait for an operator (`SqliteOutbox.rejected_rows`).
# The newest row is never pruned: SQLite gives a new row max(rowid) + 1, so keeping it keeps
# `pos` strictly increasing for the relay (and a position's delivery row can never be mistaken for
# a later event's). An episode's last event is kept (until heads_cutoff) so `stream_head` can still
# resume the stream when its outcome arrives days later.

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
    rejected: str | None = None
    """Why the relay gave up on this row for good (it is kept, not shipped), else None."""

    def structured(self) -> dict[str, Any]:
        """The event in CloudEvents structured form, as written (hash-verifiable)."""
        loaded: dict[str, Any] = json.loads(self.doc)
        return loaded

    def record(self) -> KafkaRecord:
        """The Kafka message this row is produced as."""
        return kafka_record_of(self.doc)


class DeliveryMark(NamedTuple):
    """The final word on one outbox row: a broker delivery report, or a rejection (a tuple: a relay
    process sends thousands a second over a pipe, and its fields are `MARK`'s parameters in order)."""

    pos: int
    partition: int | None
    offset: int | None
    delivered_at: float
    rejected: str | None = None
    """Why the row can never be produced (partition and offset are then None)."""

    @classmethod
    def rejection(cls, pos: int, reason: str, at: float) -> DeliveryMark:
        """A row given up on for good: it stays in the outbox, settled but not delivered."""
        return cls(pos, None, None, at, reason)


def encode_row(event: Event, appended_at: float, doc: bytes | None = None) -> Row:
    """The outbox row of `event` (`doc`: its structured JSON, when the chain already made it)."""
    return (event.episodeid, event.seq, event.id, event.hash, doc or to_json(event), appended_at)


def decode_row(values: Sequence[Any]) -> OutboxRow:
    """An `OutboxRow` from a `ROWS` result."""
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
