"""The outbox's stored form: its two SQLite files, their statements, rows and Kafka records.

`<outbox>` (as `main`) holds the events, written only by the capturing process; `<outbox>.delivery`
(as `d`) the final word on each, written only by the relay, so neither waits for the other's lock.
A row holds the event's structured JSON (`SealedEvent.doc`: the bytes the chain hashed, plus `hash`),
and its Kafka form is made from that JSON alone: an older release's event ships unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from schemas import Event, KafkaRecord, to_json
from schemas.chain import ATTRIBUTES, canonical_bytes, canonical_json
from schemas.codec import CONTENT_TYPE

Row = tuple[str, int, str, str, bytes, float]
"""An outbox row as inserted: episode id, seq, event id, hash, doc, appended_at."""
SCHEMA_VERSION = 4

OUTBOX_TABLE = """
CREATE TABLE IF NOT EXISTS main.outbox (
    pos INTEGER PRIMARY KEY,          -- append order; rowids only grow, see PRUNABLE
    episode_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    doc BLOB NOT NULL,                -- CloudEvents structured JSON, as written
    appended_at REAL NOT NULL,
    UNIQUE (episode_id, seq)          -- forks are refused; a repeated append is a no-op
)"""
DELIVERY_TABLE = """
CREATE TABLE IF NOT EXISTS d.delivery (  -- the final word on an outbox row, written on the report
    pos INTEGER PRIMARY KEY,          -- the outbox row
    kafka_partition INTEGER,          -- where the broker put it (NULL when rejected)
    kafka_offset INTEGER,
    delivered_at REAL NOT NULL,       -- when the report came
    rejected TEXT                     -- why it can never be produced (too large, unreadable), else NULL
)"""

INSERT = (
    "INSERT INTO main.outbox (episode_id, seq, event_id, hash, doc, appended_at) VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (episode_id, seq) DO NOTHING"
)
HELD = "SELECT event_id FROM main.outbox WHERE episode_id = ? AND seq = ?"
MARK = (
    "INSERT OR IGNORE INTO d.delivery (pos, kafka_partition, kafka_offset, delivered_at, rejected)"
    " VALUES (?, ?, ?, ?, ?)"
)
"""The final word on a row; the first one stands (a second is a duplicate send's report)."""
UNSETTLED = "NOT EXISTS (SELECT 1 FROM d.delivery s WHERE s.pos = o.pos)"
"""`WHERE` clause of an outbox row `o` still waiting for its final word (one primary-key probe)."""
ROWS = (
    "SELECT o.pos, o.event_id, o.episode_id, o.seq, o.doc, o.appended_at, s.delivered_at,"
    " s.kafka_partition, s.kafka_offset, s.rejected FROM main.outbox o LEFT JOIN d.delivery s ON s.pos = o.pos"
)
"""Stored rows with their final word (add WHERE / ORDER BY)."""
PRUNABLE = """
SELECT o.pos FROM main.outbox o JOIN d.delivery s ON s.pos = o.pos
WHERE s.delivered_at < :cutoff AND s.rejected IS NULL
  AND o.pos < (SELECT max(pos) FROM main.outbox)
  AND (s.delivered_at < :heads_cutoff
       OR EXISTS (SELECT 1 FROM main.outbox n WHERE n.episode_id = o.episode_id AND n.seq > o.seq))
LIMIT :limit
"""
# Rejected rows wait for an operator. The newest row stays: SQLite numbers a new row max(rowid) + 1,
# so `pos` only grows. An episode's last event stays until `heads_cutoff`, for `stream_head`.

_HEADERS = tuple((name, f"ce_{name}") for name in (*ATTRIBUTES, "hash") if name != "datacontenttype")
_CONTENT_TYPE = CONTENT_TYPE.encode()
_SEALED_HEAD = b'{"data":'
_SEALED_DATA_END = b',"datacontenttype":'


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


def kafka_record_of(doc: bytes) -> KafkaRecord:
    """`kafka_record` of a stored row's JSON. A chain-sealed document (canonical JSON, `hash`
    appended) starts with `data`, already the canonical bytes to ship, and every attribute after it
    is flat, so the last `,"datacontenttype":` ends `data` (a nested key of that name comes earlier,
    one inside a string is escaped) and only the short tail is parsed."""
    if doc.startswith(_SEALED_HEAD):
        end = doc.rfind(_SEALED_DATA_END)
        if end > 0:
            attributes = json.loads("{" + doc[end + 1 :].decode())
            return _record(attributes, doc[len(_SEALED_HEAD) : end])
    return kafka_record(json.loads(doc))


_SEALED_HASH = re.compile(rb',"hash":"[0-9a-f]{64}"\}\Z')


def canonical_of(doc: bytes) -> bytes:
    """The canonical bytes (what the hash and the event MAC cover) of a stored row's JSON. A sealed
    document is those bytes with `,"hash":"..."` spliced in before the closing brace, so cutting it
    off gives them back without parsing; any other document is parsed and canonicalised."""
    if doc.startswith(_SEALED_HEAD) and _SEALED_HASH.match(doc[-75:]):
        return doc[:-75] + b"}"
    return canonical_bytes(json.loads(doc))


@dataclass(frozen=True)
class OutboxRow:
    """One stored event, with the relay's final word on it when there is one."""

    pos: int
    event_id: str
    episode_id: str
    seq: int
    doc: bytes
    appended_at: float
    delivered_at: float | None = None
    partition: int | None = None
    offset: int | None = None
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
    """The final word on one outbox row, a delivery report or a rejection (`MARK`'s parameters)."""

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
