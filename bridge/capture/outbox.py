"""`SqliteOutbox`: the durable, idempotent event log on the agent's machine that the relay drains.

An append is one autocommit `INSERT` into a SQLite file in WAL mode, so when it returns the event
is in the kernel's page cache: it survives SIGKILL, a crash or an OOM kill of the process. A power
cut can take what came after the last checkpoint, unless `durability="power"` (`synchronous=FULL`)
fsyncs the WAL in every commit. The unique index on (episode id, seq) makes a retry a no-op and a
fork a `StreamConflict`. Stdlib `sqlite3`: an append is on the agent's hot path and needs nothing
portable. The process writes through one connection and reads through another, so a long read
never holds an append up; the relay opens the files itself and writes only the delivery file.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from bridge.capture.outbox_rows import (
    DELIVERY_TABLE,
    HELD,
    INSERT,
    OUTBOX_TABLE,
    ROWS,
    SCHEMA_VERSION,
    UNSETTLED,
    OutboxRow,
    Row,
    encode_row,
)
from bridge.recording.sink import CaptureUnavailable, StreamConflict, StreamHead, UnknownStream
from schemas import Event

Durability = Literal["process", "power"]
WAL_RESTART_PAGES = 16_384
"""WAL pages past which the relay's checkpoint starts the WAL over (delivery.py): the WAL file then
stays about this large and appends write into blocks it already has."""
WAL_BACKSTOP_PAGES = 2 * WAL_RESTART_PAGES
"""WAL pages past which an append checkpoints by itself: only when no relay runs."""


class OutboxClosed(CaptureUnavailable):
    """The outbox was closed; nothing more can be appended."""


class OutboxInUse(RuntimeError):
    """Another process has this outbox open (one outbox file belongs to one capturing process)."""


def _claim(path: Path, timeout_s: float) -> int:
    """Lock `<outbox>.lock` for this process, waiting up to `timeout_s`; the kernel releases it when
    the process dies, SIGKILL included. The relay opens the outbox without it."""
    fd, deadline = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600), time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise OutboxInUse(f"{path} is open in another process") from None
            time.sleep(0.05)


def delivery_path(path: Path) -> Path:
    """The relay's file beside the outbox at `path`."""
    return path.with_name(f"{path.name}.delivery")


def connect(path: Path, *, synchronous: str = "NORMAL", timeout_s: float = 5.0) -> sqlite3.Connection:
    """An autocommit connection to the outbox at `path` in WAL mode, its delivery file attached as `d`."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=timeout_s)
    try:
        conn.execute("ATTACH DATABASE ? AS d", (str(delivery_path(path)),))
        for schema in ("main", "d"):
            conn.execute(f"PRAGMA {schema}.journal_mode=WAL")
            conn.execute(f"PRAGMA {schema}.synchronous={synchronous}")
        conn.execute(f"PRAGMA wal_autocheckpoint={WAL_BACKSTOP_PAGES}")
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection, begin: str = "BEGIN") -> Iterator[None]:
    """One transaction on `conn`, rolled back on any error. `BEGIN` is deferred: it takes the write
    lock of the file it first writes, not of every attached one."""
    conn.execute(begin)
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # SQLite rolls some failures back itself
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class SqliteOutbox:
    """The durable `StreamStore` of one process; safe for many threads."""

    def __init__(
        self, path: str | Path, *, durability: Durability = "process", open_timeout_s: float = 5.0
    ) -> None:
        self.path, self.durability = Path(path), durability
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock, self._read_lock = threading.Lock(), threading.Lock()  # one per connection
        self._closed, self._floor = False, 0  # every row at or below `_floor` has its final word
        self._claimed = _claim(self.path, open_timeout_s)
        try:
            synchronous = "FULL" if durability == "power" else "NORMAL"
            self._conn = connect(self.path, synchronous=synchronous, timeout_s=open_timeout_s)
            self._reader = connect(self.path, timeout_s=open_timeout_s)
            self._create_schema()
        except BaseException:
            self.close()
            raise
        self._insert = self._conn.cursor()

    def _create_schema(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise RuntimeError(
                f"{self.path} has outbox schema {version}; this release reads {SCHEMA_VERSION}"
            )
        with transaction(self._conn, "BEGIN IMMEDIATE"):
            self._conn.execute(OUTBOX_TABLE)
            self._conn.execute(DELIVERY_TABLE)
            # A report for a position past the newest row could only mislabel a future row.
            self._conn.execute(
                "DELETE FROM d.delivery WHERE pos > (SELECT coalesce(max(pos), 0) FROM main.outbox)"
            )
            self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def append(self, event: Event, doc: bytes | None = None) -> None:
        """Store `event`; return once it is durable (the module docstring says how durable).

        `doc` is the event's JSON as the chain sealed it, stored as is. The same event again is a
        no-op; `StreamConflict` if another event holds its (episode, seq); `CaptureUnavailable` if
        it cannot be stored.
        """
        row = encode_row(event, time.time(), doc)
        with self._lock, self._storing():
            if self._insert.execute(INSERT, row).rowcount != 1:  # the position is taken
                self._check_held([row])

    def append_many(self, events: Sequence[Event], docs: Sequence[bytes] | None = None) -> None:
        """Store all of `events` in one transaction, or none of them (on a conflict)."""
        if docs is not None and len(docs) != len(events):
            raise ValueError(f"{len(events)} events but {len(docs)} docs")
        now, sealed = time.time(), docs if docs is not None else [None] * len(events)
        rows = [encode_row(event, now, doc) for event, doc in zip(events, sealed, strict=True)]
        with self._lock, self._storing(), transaction(self._conn):
            if self._insert.executemany(INSERT, rows).rowcount != len(rows):
                self._check_held(rows)

    @contextmanager
    def _storing(self) -> Iterator[None]:
        if self._closed:
            raise OutboxClosed(f"the outbox {self.path} is closed")
        try:
            yield
        except sqlite3.Error as exc:  # a full disk, an I/O error: nothing was stored
            raise CaptureUnavailable(f"the outbox {self.path} cannot store events: {exc}") from exc

    def _check_held(self, rows: Sequence[Row]) -> None:
        # Each row's position holds that row's event (a retry), or it is a fork.
        for episode_id, seq, event_id, *_ in rows:
            held = self._conn.execute(HELD, (episode_id, seq)).fetchone()
            if held is not None and held[0] != event_id:
                raise StreamConflict(f"{episode_id}#{seq} already holds event {held[0]}, not {event_id}")

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._read_lock:
            if self._closed:
                raise OutboxClosed(f"the outbox {self.path} is closed")
            try:
                return self._reader.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise CaptureUnavailable(f"the outbox {self.path} cannot be read: {exc}") from exc

    def _first_unsettled(self) -> int | None:
        # The oldest row still waiting, searched from the floor, which moves up to just below it.
        first_sql = f"SELECT min(o.pos) FROM main.outbox o WHERE o.pos > ? AND {UNSETTLED}"
        first, newest = self._read(f"SELECT ({first_sql}), max(pos) FROM main.outbox", (self._floor,))[0]
        self._floor = max(self._floor, (first - 1) if first is not None else (newest or 0))
        return None if first is None else int(first)

    def pending_count(self, upto_pos: int | None = None) -> int:
        """How many rows (up to `upto_pos`) wait for a delivery report or a rejection."""
        self._first_unsettled()
        sql = f"SELECT count(*) FROM main.outbox o WHERE o.pos > ? AND o.pos <= ? AND {UNSETTLED}"
        return int(self._read(sql, (self._floor, upto_pos if upto_pos is not None else 2**63 - 1))[0][0])

    def oldest_pending_at(self) -> float | None:
        """When the oldest row still waiting for its final word was appended (Unix time); None
        when nothing waits."""
        first = self._first_unsettled()
        if first is None:
            return None
        found = self._read("SELECT appended_at FROM main.outbox WHERE pos = ?", (first,))
        return float(found[0][0]) if found else None

    def all_settled(self, upto_pos: int | None = None) -> bool:
        """Whether every row (up to `upto_pos`) has its final word: what a relay's `flush` waits for."""
        first = self._first_unsettled()
        return first is None or (upto_pos is not None and first > upto_pos)

    def last_pos(self) -> int:
        """Position of the newest row (0 when empty)."""
        return int(self._read("SELECT coalesce(max(pos), 0) FROM main.outbox")[0][0])

    def _rows(self, clauses: str, params: Sequence[Any] = ()) -> list[OutboxRow]:
        return [OutboxRow(*values) for values in self._read(f"{ROWS} {clauses}", params)]

    def rows(self, episode_id: str | None = None) -> list[OutboxRow]:
        """Stored rows with their final word (of one episode, in seq order; else all, in append order)."""
        if episode_id is None:
            return self._rows("ORDER BY o.pos")
        return self._rows("WHERE o.episode_id = ? ORDER BY o.seq", (episode_id,))

    def rejected_rows(self, limit: int = 100) -> list[OutboxRow]:
        """The oldest `limit` rows the relay gave up on for good (too large for the broker,
        unreadable), in append order: kept here, never pruned, for an operator to inspect."""
        return self._rows("WHERE s.rejected IS NOT NULL ORDER BY o.pos LIMIT ?", (limit,))

    def events(self, episode_id: str) -> list[dict[str, Any]]:
        """One episode's stored events in structured form, as written, in seq order."""
        return [row.structured() for row in self.rows(episode_id)]

    def last_rows(self) -> list[OutboxRow]:
        """The newest stored row of every stream (pruning keeps each stream's last row), in append
        order: what start-up recovery reads to find episodes a crash left open."""
        return self._rows(
            "WHERE o.seq = (SELECT max(l.seq) FROM main.outbox l WHERE l.episode_id = o.episode_id) ORDER BY o.pos"
        )

    def stream_head(self, episode_id: str) -> StreamHead:
        """(next_seq, prevhash) after the episode's last stored event; `UnknownStream` if none."""
        sql = "SELECT seq, hash FROM main.outbox WHERE episode_id = ? ORDER BY seq DESC LIMIT 1"
        found = self._read(sql, (episode_id,))
        if not found:
            raise UnknownStream(episode_id)
        return StreamHead(int(found[0][0]) + 1, str(found[0][1]))

    def close(self) -> None:
        """Close both connections and let another process open the outbox. Idempotent."""
        with self._lock, self._read_lock:
            if not self._closed:
                self._closed = True
                for conn in (getattr(self, "_conn", None), getattr(self, "_reader", None)):
                    if conn is not None:
                        conn.close()
                os.close(self._claimed)

    def __enter__(self) -> SqliteOutbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
