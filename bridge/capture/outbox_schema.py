"""Bringing an outbox file of an older schema to the current one, at open, in the open's transaction.

Schema 1 kept the delivery report in the outbox row, 2 in a `delivery` table of the events file, 3
too, with a `journal` table: how far `<outbox>.journal` (framed events in front of SQLite) was stored.
A journal still holding events SQLite never stored is refused: its release stores them when it opens.
"""

from __future__ import annotations

import sqlite3
import struct
import zlib
from pathlib import Path

_JOURNAL_HEADER = struct.Struct("<4sQ")  # magic, generation
_JOURNAL_FRAME = struct.Struct("<II")  # body length, CRC-32 of the body; the body starts with its generation


def migrate(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Move an outbox file of schema `version` to the current one (the caller's transaction)."""
    if version == 1:
        conn.execute(
            "INSERT OR IGNORE INTO d.delivery (pos, kafka_partition, kafka_offset, delivered_at)"
            " SELECT pos, kafka_partition, kafka_offset, delivered_at FROM main.outbox"
            " WHERE delivered_at IS NOT NULL"
        )
        for column in ("delivered_at", "kafka_partition", "kafka_offset"):
            conn.execute(f"ALTER TABLE main.outbox DROP COLUMN {column}")
    if version in (2, 3):
        conn.execute("INSERT OR IGNORE INTO d.delivery SELECT * FROM main.delivery")
        conn.execute("DROP TABLE main.delivery")
    if version == 3:
        journal = Path(f"{path}.journal")
        found = conn.execute("SELECT generation, ingested FROM main.journal").fetchone()
        if journal.exists() and _holds_unstored_frames(journal, *(found or (0, 0))):
            raise RuntimeError(
                f"{journal} holds events its outbox never stored; open {path} once with the release"
                " that wrote it (it stores them), then with this one"
            )
        conn.execute("DROP TABLE main.journal")
        journal.unlink(missing_ok=True)


def _holds_unstored_frames(journal: Path, stored_generation: int, stored_end: int) -> bool:
    # A whole frame of the file's generation where the stored offset ends (right after the header,
    # when the file is of a newer generation than the one stored) is an event SQLite never stored.
    data = journal.read_bytes()
    if len(data) < _JOURNAL_HEADER.size or data[:4] != b"LLJ1":
        return False
    generation = _JOURNAL_HEADER.unpack_from(data)[1]
    if generation < stored_generation:
        return False
    at = stored_end if generation == stored_generation else _JOURNAL_HEADER.size
    if at + _JOURNAL_FRAME.size > len(data):
        return False
    size, crc = _JOURNAL_FRAME.unpack_from(data, at)
    body = data[at + _JOURNAL_FRAME.size : at + _JOURNAL_FRAME.size + size]
    return (
        len(body) == size >= 8
        and zlib.crc32(body) == crc
        and body[:8] == int(generation).to_bytes(8, "little")
    )
