"""Outbox files of an older schema: migrated at open, or refused when that would lose events."""

from __future__ import annotations

import sqlite3
import struct
import zlib
from contextlib import closing
from pathlib import Path

import pytest

from bridge.capture import DeliveryLog, SqliteOutbox
from bridge.capture.outbox import delivery_path
from bridge.capture.outbox_rows import SCHEMA_VERSION
from bridge.recording import StreamHead
from schemas import EpisodeChain, to_json
from schemas.events import Escalated


def chain(episode: str) -> EpisodeChain:
    return EpisodeChain(episode, tenant="clinic-a", source="loopline://tests/capture")


def escalation(n: int) -> Escalated:
    return Escalated(reason=f"reason {n}", trigger="rule")


V1_SCHEMA = """
CREATE TABLE outbox (
    pos INTEGER PRIMARY KEY, episode_id TEXT NOT NULL, seq INTEGER NOT NULL, event_id TEXT NOT NULL,
    hash TEXT NOT NULL, doc BLOB NOT NULL, appended_at REAL NOT NULL, delivered_at REAL,
    kafka_partition INTEGER, kafka_offset INTEGER, UNIQUE (episode_id, seq)
)"""


def test_an_outbox_of_schema_1_is_migrated_with_its_delivery_reports(tmp_path: Path) -> None:
    # schema 1 kept the delivery report in the outbox row; a bridge upgraded with an outbox still
    # holding undelivered events must neither lose them nor re-send the delivered ones
    path = tmp_path / "v1.db"
    c = chain("ep-1")
    events = [c.append(escalation(i)) for i in range(3)]
    conn = sqlite3.connect(path)
    conn.execute(V1_SCHEMA)
    conn.executemany(
        "INSERT INTO outbox VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (1, "ep-1", 0, events[0].id, events[0].hash, to_json(events[0]), 1.0, 5.0, 2, 40),
            (2, "ep-1", 1, events[1].id, events[1].hash, to_json(events[1]), 2.0, None, None, None),
            (3, "ep-1", 2, events[2].id, events[2].hash, to_json(events[2]), 3.0, None, None, None),
        ],
    )
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()

    with SqliteOutbox(path) as outbox, closing(DeliveryLog(path)) as delivery:
        assert [r.pos for r in delivery.pending(0, 10)] == [2, 3]
        first = outbox.rows("ep-1")[0]
        assert (first.delivered_at, first.partition, first.offset) == (5.0, 2, 40)
        assert outbox.stream_head("ep-1") == StreamHead(3, c.prevhash)
        outbox.append(c.append(escalation(3)))
        assert outbox.pending_count() == 3
    reader = sqlite3.connect(path)
    assert reader.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    columns = {row[1] for row in reader.execute("PRAGMA table_info(outbox)")}
    assert not columns & {"delivered_at", "kafka_partition", "kafka_offset"}
    reader.close()


V3_SCHEMA = (
    "CREATE TABLE outbox (pos INTEGER PRIMARY KEY, episode_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " event_id TEXT NOT NULL, hash TEXT NOT NULL, doc BLOB NOT NULL, appended_at REAL NOT NULL,"
    " UNIQUE (episode_id, seq))",
    "CREATE TABLE delivery (pos INTEGER PRIMARY KEY, kafka_partition INTEGER, kafka_offset INTEGER,"
    " delivered_at REAL NOT NULL, rejected TEXT)",
    "CREATE TABLE journal (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL,"
    " ingested INTEGER NOT NULL)",
)


def schema_3_outbox(path: Path, *, generation: int, ingested: int) -> None:
    """A schema-3 outbox with three events, the first delivered, its journal stored up to `ingested`."""
    c = chain("ep-1")
    events = [c.append(escalation(i)) for i in range(3)]
    conn = sqlite3.connect(path)
    for statement in V3_SCHEMA:
        conn.execute(statement)
    rows = [(i + 1, "ep-1", i, e.id, e.hash, to_json(e), 1.0) for i, e in enumerate(events)]
    conn.executemany("INSERT INTO outbox VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.execute("INSERT INTO delivery VALUES (1, 0, 7, 5.0, NULL)")
    conn.execute("INSERT INTO journal VALUES (1, ?, ?)", (generation, ingested))
    conn.execute("PRAGMA user_version=3")
    conn.commit()
    conn.close()


def journal_file(path: Path, generation: int, frames: list[bytes]) -> Path:
    """`<outbox>.journal` of that release: magic and generation, then frames (length, CRC-32, body)."""
    journal = Path(f"{path}.journal")
    data = struct.pack("<4sQ", b"LLJ1", generation)
    for body in frames:
        data += struct.pack("<II", len(body), zlib.crc32(body)) + body
    journal.write_bytes(data + bytes(4096))  # the file was filled with zeros past its frames
    return journal


def test_an_outbox_of_schema_3_whose_journal_was_stored_is_migrated_and_the_journal_removed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v3.db"
    schema_3_outbox(path, generation=5, ingested=12)  # stored up to just after the header
    leftover = struct.pack("<Q", 4) + b"an event of the cycle before the file started over"
    journal = journal_file(path, 5, [leftover])  # another generation's frame: not an event
    with SqliteOutbox(path) as outbox, closing(DeliveryLog(path)) as delivery:
        assert [r.pos for r in delivery.pending(0, 10)] == [2, 3]
        first = outbox.rows("ep-1")[0]
        assert (first.partition, first.offset, first.delivered_at) == (0, 7, 5.0)
        assert outbox.stream_head("ep-1").next_seq == 3
    assert not journal.exists()
    with closing(sqlite3.connect(path)) as events, closing(sqlite3.connect(delivery_path(path))) as reports:
        tables = {row[0] for row in events.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables == {"outbox"}
        assert reports.execute("SELECT pos FROM delivery").fetchall() == [(1,)]


def test_an_outbox_of_schema_3_whose_journal_holds_unstored_events_is_refused_untouched(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v3.db"
    schema_3_outbox(path, generation=2, ingested=12)
    unstored = struct.pack("<Q", 2) + b"an event its process journaled and never stored"
    journal = journal_file(path, 2, [unstored])
    before = journal.read_bytes()
    with pytest.raises(RuntimeError, match="never stored"):
        SqliteOutbox(path)
    assert journal.read_bytes() == before
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (3,)  # nothing was migrated
