"""`SqliteOutbox`: the durable, idempotent event log on the agent's machine that the relay drains.

Why stdlib `sqlite3` and not SQLAlchemy: `append` sits on the agent's hot path (target: 0.1 ms per
tool call for two events), and an ORM or Core round trip alone costs more than that. The schema is
one table; nothing here needs a portable dialect.

Durability (docs/capture.md has the measurements):
- `process` (default): WAL with `synchronous=NORMAL`; each append is its own transaction committed
  on the caller's thread. When `append` returns, the frame is in the WAL file through `write()`,
  i.e. in the OS page cache: it survives SIGKILL, a crash or an OOM kill of the process, not a
  power cut or kernel panic. The checkpointer thread fsyncs the WAL about once a second, which
  bounds what a power cut can take to about the last second.
- `power`: `synchronous=FULL`; appends are committed by a group-commit thread, and `append`
  returns after the fsync. Concurrent appenders share one fsync.

A row holds the event's structured JSON; the relay makes its Kafka binary form (outbox_rows.py).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from bridge.capture.checkpointer import AUTOCHECKPOINT_BACKSTOP, WalCheckpointer
from bridge.capture.group_commit import GroupCommitter
from bridge.capture.outbox_rows import (
    COLUMNS,
    PRUNE,
    SCHEMA,
    SCHEMA_VERSION,
    DeliveryMark,
    OutboxRow,
    Row,
    decode_row,
    encode_row,
    insert_rows,
)
from bridge.capture.sink import StreamHead, UnknownStream
from schemas import Event

Durability = Literal["process", "power"]


class OutboxClosed(RuntimeError):
    """The outbox was closed; nothing more can be appended."""


def _connect(path: Path, synchronous: str) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves; a lone INSERT commits by itself.
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    # Checkpoints run on the checkpointer thread (checkpointer.py); this is only a backstop.
    conn.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_BACKSTOP}")
    return conn


class SqliteOutbox:
    """The durable `EventSink` and `StreamHeads`; safe for many threads of one process.

    One outbox file belongs to one process: writers are serialised by an in-process lock (which
    wakes in microseconds) instead of SQLite's busy handler (which sleeps whole milliseconds).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        durability: Durability = "process",
        checkpoint_interval_s: float = 1.0,
        wal_restart_frames: int = 4096,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.durability: Durability = durability
        self._clock = clock
        self._write_lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._appended = threading.Event()
        self._closed = False
        self._commits = 0
        self._writer = _connect(self.path, "FULL" if durability == "power" else "NORMAL")
        self._create_schema()
        self._maint = _connect(self.path, "NORMAL")  # delivery marks, prune: losing one only re-sends
        self._reader = _connect(self.path, "NORMAL")
        self._committer = (
            GroupCommitter(self._writer, self._write_lock, on_commit=self._wake)
            if durability == "power"
            else None
        )
        self._checkpointer = WalCheckpointer(
            self.path,
            interval_s=checkpoint_interval_s,
            restart_frames=wal_restart_frames,
            write_lock=self._write_lock,
        )

    def _create_schema(self) -> None:
        version = self._writer.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise RuntimeError(
                f"{self.path} has outbox schema {version}; this release reads {SCHEMA_VERSION}"
            )
        with self._write_lock:
            self._writer.execute(SCHEMA)
            self._writer.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    # -- appending ---------------------------------------------------------------------------------

    def append(self, event: Event, doc: bytes | None = None) -> None:
        """Store `event`; returns once it is durable (see the module docstring for how durable).

        `doc`, when given, is the event's structured JSON as the chain sealed it, stored as is.
        Idempotent: a repeated append of the same event is a no-op. `StreamConflict` if another
        event holds its (episode, seq).
        """
        self._append_rows([encode_row(event, self._clock(), doc)])

    def append_many(self, events: Sequence[Event]) -> None:
        """Store all of `events` in one transaction, or none of them (on a conflict)."""
        now = self._clock()
        self._append_rows([encode_row(event, now) for event in events])

    def _append_rows(self, rows: list[Row]) -> None:
        if self._committer is not None:
            self._submit(rows)
            return
        with self._write_lock:
            if self._closed:
                raise OutboxClosed(str(self.path))
            if len(rows) == 1:
                insert_rows(self._writer, rows)  # autocommit: the INSERT is its own transaction
            else:
                self._writer.execute("BEGIN IMMEDIATE")
                try:
                    insert_rows(self._writer, rows)
                except BaseException:
                    self._writer.execute("ROLLBACK")
                    raise
                self._writer.execute("COMMIT")
            self._commits += 1
        self._wake()

    def _submit(self, rows: list[Row]) -> None:
        assert self._committer is not None
        try:
            future = self._committer.submit(rows)
        except RuntimeError:
            raise OutboxClosed(str(self.path)) from None
        future.result()

    def _wake(self) -> None:
        if not self._appended.is_set():  # a plain read: skip the Event's lock when already set
            self._appended.set()

    def wait_for_append(self, timeout: float) -> bool:
        """Block until something was appended since the last call (or `timeout`); for the relay."""
        woke = self._appended.wait(timeout)
        self._appended.clear()
        return woke

    @property
    def commits(self) -> int:
        """Append transactions committed by this instance (in `power` mode: fsyncs)."""
        return self._committer.commits if self._committer is not None else self._commits

    def pragmas(self) -> dict[str, str]:
        """The append connection's journal mode and synchronous level, as SQLite reports them."""
        with self._write_lock:
            journal = self._writer.execute("PRAGMA journal_mode").fetchone()[0]
            level = self._writer.execute("PRAGMA synchronous").fetchone()[0]
        return {
            "journal_mode": str(journal),
            "synchronous": {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[level],
        }

    # -- reading ----------------------------------------------------------------------------------

    def _read(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        with self._read_lock:
            return self._reader.execute(sql, params).fetchall()

    def pending(self, after_pos: int, limit: int) -> list[OutboxRow]:
        """Undelivered rows after `after_pos`, in append order."""
        sql = f"SELECT {COLUMNS} FROM outbox WHERE pos > ? AND delivered_at IS NULL ORDER BY pos LIMIT ?"
        return [decode_row(values) for values in self._read(sql, (after_pos, limit))]

    def pending_count(self, upto_pos: int | None = None) -> int:
        """How many rows (up to `upto_pos`) await a delivery report."""
        limit = upto_pos if upto_pos is not None else 2**62
        return int(
            self._read("SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND pos <= ?", (limit,))[0][0]
        )

    def last_pos(self) -> int:
        """Position of the newest row (0 when empty)."""
        return int(self._read("SELECT coalesce(max(pos), 0) FROM outbox")[0][0])

    def rows(self, episode_id: str | None = None) -> list[OutboxRow]:
        """Stored rows (of one episode, in seq order; else all, in append order)."""
        if episode_id is None:
            return [decode_row(v) for v in self._read(f"SELECT {COLUMNS} FROM outbox ORDER BY pos")]
        sql = f"SELECT {COLUMNS} FROM outbox WHERE episode_id = ? ORDER BY seq"
        return [decode_row(v) for v in self._read(sql, (episode_id,))]

    def events(self, episode_id: str) -> list[dict[str, Any]]:
        """One episode's stored events in structured form, as written, in seq order."""
        return [row.structured() for row in self.rows(episode_id)]

    def stream_head(self, episode_id: str) -> StreamHead:
        """(next_seq, prevhash) after the episode's last stored event; `UnknownStream` if none."""
        sql = "SELECT seq, hash FROM outbox WHERE episode_id = ? ORDER BY seq DESC LIMIT 1"
        found = self._read(sql, (episode_id,))
        if not found:
            raise UnknownStream(episode_id)
        seq, prevhash = found[0]
        return StreamHead(int(seq) + 1, str(prevhash))

    # -- relay bookkeeping ------------------------------------------------------------------------

    def mark_delivered(self, marks: Sequence[DeliveryMark]) -> None:
        """Record delivery reports (one short transaction; callers keep batches small)."""
        if not marks:
            return
        params = [(m.delivered_at, m.partition, m.offset, m.pos) for m in marks]
        sql = "UPDATE outbox SET delivered_at = ?, kafka_partition = ?, kafka_offset = ? WHERE pos = ?"
        with self._write_lock:
            self._maint.execute("BEGIN IMMEDIATE")
            try:
                self._maint.executemany(sql, params)
            except BaseException:
                self._maint.execute("ROLLBACK")
                raise
            self._maint.execute("COMMIT")

    def prune(self, delivered_before: float, *, heads_before: float | None = None, limit: int = 500) -> int:
        """Delete up to `limit` rows delivered before `delivered_before`; returns how many.

        An episode's last event survives until `heads_before` (never, when None), so its stream
        can be resumed; the newest row of the table always survives.
        """
        params = {"cutoff": delivered_before, "heads_cutoff": heads_before or -1.0, "limit": limit}
        with self._write_lock:
            return self._maint.execute(PRUNE, params).rowcount

    def prune_expired(self, retention_s: float, head_retention_s: float | None, *, budget_s: float) -> int:
        """Prune rows delivered more than `retention_s` ago (episode heads after `head_retention_s`,
        never when None) in small slices for at most `budget_s`; returns how many went."""
        now = time.time()
        heads_before = None if head_retention_s is None else now - head_retention_s
        deadline, total = time.monotonic() + budget_s, 0
        while time.monotonic() < deadline:
            deleted = self.prune(now - retention_s, heads_before=heads_before)
            total += deleted
            if not deleted:
                break
        return total

    def checkpoint(self) -> None:
        """Checkpoint the WAL now (the background thread does this every interval)."""
        self._checkpointer.checkpoint()

    def close(self) -> None:
        """Finish pending commits, checkpoint, and close every connection. Idempotent."""
        with self._write_lock:
            if self._closed:
                return
            self._closed = True
        if self._committer is not None:
            self._committer.close()
        self._checkpointer.close()
        with self._write_lock, self._read_lock:
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for conn in (self._writer, self._maint, self._reader):
                conn.close()

    def __enter__(self) -> SqliteOutbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
