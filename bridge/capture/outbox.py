"""`SqliteOutbox`: the durable, idempotent event log on the agent's machine that the relay drains.

Why stdlib `sqlite3` and not SQLAlchemy: `append` sits on the agent's hot path (target: 0.1 ms per
tool call for two events), and an ORM or Core round trip alone costs more than that. The schema is
three small tables (events, their delivery reports, how far the journal is ingested); nothing here
needs a portable dialect.

One connection, in SQLite's EXCLUSIVE locking mode: the process holds the file's locks from open
to close (about 8 us less per commit, docs/capture.md), and a second process cannot open the
outbox (`OutboxInUse`) and race this one's relay. SQLite work takes turns on an in-process lock.

**The journal** (`process` durability, the default; journal.py): `append` checks the event's
position against memory (the newest seq of each stream it has seen, and the rows not yet in
SQLite), writes one framed record into the journal file with one `pwrite()`, and returns. The
ingester thread moves the journaled rows into SQLite every `INGEST_LINGER_S` in one transaction,
with the journal offset they end at; any read ingests first, so every read sees every append.
Every stream's newest seq is kept in memory (loaded at open), so the agent's appends never wait for
SQLite's lock; only a retry or a fork (a position at or before the newest) asks SQLite. Why the
journal: a SQLite commit per event is two WAL frames and, on a VM whose caches go cold between
paced tool calls, most of capture's cost; `journal=False` keeps the commit-per-append path
(docs/capture.md has both measured).

The relay reads rows from memory (`pending` serves them from a bounded queue the ingest fills), so
in steady state it never queues on the lock for a read; rows from before a restart, a batch append
or an overflowed queue are read from SQLite.

Durability (docs/capture.md has the measurements):
- `process` (default): the journal's `pwrite()` puts the event in the OS page cache before `append`
  returns: it survives SIGKILL, a crash or an OOM kill of the process, not a power cut or kernel
  panic. SQLite runs WAL with `synchronous=NORMAL`, and the checkpointer thread fsyncs the WAL about
  once a second, which bounds what a power cut can take to about the last second (plus the ingest
  delay).
- `power`: `synchronous=FULL`, no journal; appends are committed by a group-commit thread, and
  `append` returns after the fsync. Concurrent appenders share one fsync.

A row holds the event's structured JSON; the relay makes its Kafka binary form (outbox_rows.py).
"""

from __future__ import annotations

import functools
import itertools
import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from bridge.capture.checkpointer import AUTOCHECKPOINT_BACKSTOP, WalCheckpointer
from bridge.capture.group_commit import GroupCommitter
from bridge.capture.journal import HEADER_SIZE, Journal
from bridge.capture.journal import SIZE as JOURNAL_SIZE
from bridge.capture.journal import encode_row as journal_frame
from bridge.capture.outbox_rows import (
    INGESTED,
    INSERT,
    MARK,
    MIGRATIONS,
    PRUNABLE,
    ROWS,
    SCHEMA,
    SCHEMA_VERSION,
    UNSETTLED,
    DeliveryMark,
    OutboxRow,
    Row,
    decode_row,
    encode_row,
    insert_rows,
)
from bridge.capture.sink import CaptureUnavailable, StreamConflict, StreamHead, UnknownStream
from schemas import Event

log = logging.getLogger(__name__)

Durability = Literal["process", "power"]
PendingRecord = tuple[int, str, str, int, bytes, float]
"""An undelivered row: pos, event id, episode id, seq, doc, appended_at."""
PAGE_SIZE = 2048
"""Page size of a new outbox file. A commit writes one table page and one index page to the WAL:
2 KB pages halve those bytes and measured about 7 us less per tool call than 4 KB (docs/capture.md)."""
MARK_CHUNK = 64
"""Delivery marks per transaction: the appenders' wait for the lock stays short."""
YIELD_S = 50e-6
"""How long a background writer sleeps between slices. `sleep(0)` is not enough: the sleeper takes
the GIL straight back before a waiting appender thread has even woken up, and the appender then
waits out the 5 ms switch interval. A real sleep leaves it the GIL."""
PENDING_COUNT_SLICE = 4_096
"""Positions `pending_count` counts per hold of the lock (2 to 5 ms of SQLite work here)."""
FRESH_LIMIT = 8_192
"""Rows kept in memory for the relay; past this it has fallen behind and reads SQLite instead."""
INGEST_LINGER_S = 0.05
"""How long journaled rows wait before the ingester thread moves them into SQLite, all at once.
Long on purpose: the thread's Python work takes the GIL from the agents' threads, and every
hand-over of the GIL is a thread wake-up; batches of 50 ms make those a few a second. The SQLite
work itself (one multi-row INSERT per `INGEST_CHUNK` rows) runs with the GIL released."""
INGEST_BACKLOG = 4096
"""If this many rows wait (the ingester thread has fallen behind), the append that finds them
moves them into SQLite itself."""
INGEST_CHUNK = 256
"""Journaled rows per multi-row INSERT statement (6 parameters a row: well under SQLite's limit)."""
UNFLUSHED_LIMIT = 65_536
"""Journaled rows not yet ingested, at most: past this SQLite has been failing for a while (a full
disk), and appends are refused (`CaptureUnavailable`) rather than held in memory without bound."""
HEADS_LIMIT = 262_144
"""Streams whose newest seq the outbox remembers before it rebuilds that memory from SQLite (which
forgets the streams pruned meanwhile); the limit then doubles if SQLite still holds more."""
JOURNAL_RESET_BYTES = JOURNAL_SIZE // 2
"""The journal starts over (a new generation) after an ingest that leaves it this full."""


class OutboxClosed(CaptureUnavailable):
    """The outbox was closed; nothing more can be appended."""


class OutboxInUse(RuntimeError):
    """Another process has this outbox open (one outbox file belongs to one process)."""


@functools.cache
def _insert_many(n: int) -> str:
    """`INSERT` of `n` outbox rows in one statement (positions already taken are skipped)."""
    values = ", ".join(["(?, ?, ?, ?, ?, ?)"] * n)
    return (
        f"INSERT INTO outbox (episode_id, seq, event_id, hash, doc, appended_at) VALUES {values}"
        " ON CONFLICT (episode_id, seq) DO NOTHING"
    )


def _rollback(conn: sqlite3.Connection) -> None:
    # SQLite rolls some failures back by itself (a full disk): a ROLLBACK then would raise and hide
    # the error that matters.
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _connect(path: Path, synchronous: str, open_timeout_s: float) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves; a lone INSERT commits by itself.
    conn = sqlite3.connect(
        path, isolation_level=None, check_same_thread=False, timeout=open_timeout_s, cached_statements=512
    )
    try:
        # EXCLUSIVE before the first access in WAL mode: no shared-memory index is ever made.
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")  # takes effect on a new file only
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        # Checkpoints run on the checkpointer thread (checkpointer.py); this is only a backstop.
        conn.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_BACKSTOP}")
        conn.execute("BEGIN IMMEDIATE")  # take the file's write lock now, and keep it
        conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        conn.close()
        if "locked" in str(exc):
            raise OutboxInUse(f"{path} is open in another process ({exc})") from None
        raise
    return conn


class SqliteOutbox:
    """The durable `EventSink` and `StreamHeads`; safe for many threads of one process.

    One outbox file belongs to one process (`OutboxInUse` otherwise): its one connection is shared
    under an in-process lock, which wakes waiters in microseconds where SQLite's busy handler
    would sleep whole milliseconds.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        durability: Durability = "process",
        checkpoint_interval_s: float = 1.0,
        wal_restart_frames: int = 4096,
        clock: Callable[[], float] = time.time,
        open_timeout_s: float = 5.0,
        journal: bool | None = None,
    ) -> None:
        """Open (or create) the outbox at `path`. `journal` (default: on in `process` durability,
        which it has; `power` has none) puts the journal in front of SQLite (see the module
        docstring); off, each append is its own SQLite commit on the caller's thread."""
        use_journal = durability == "process" if journal is None else journal
        if use_journal and durability != "process":
            raise ValueError("the journal has `process` durability: `power` appends commit and fsync")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.durability: Durability = durability
        self._clock = clock
        self._lock = threading.Lock()
        self._appended = threading.Event()
        self._closed = False
        self._commits = 0
        self._floor = 0  # every row at or below this pos is delivered (pending_count)
        self._fresh: deque[tuple[int, Row]] = deque()  # (pos, row) committed here, for the relay
        self._fresh_read = threading.Lock()  # one reader at a time; appenders only append
        self._relay_reads = False  # rows are queued only once something reads `pending`
        self._append_sync = "FULL" if durability == "power" else "NORMAL"
        self._conn = _connect(self.path, self._append_sync, open_timeout_s)
        self._insert = self._conn.cursor()
        self._create_schema()
        self._jlock = threading.Lock()  # the journal and what is journaled but not yet ingested
        self._unflushed: list[Row] = []
        self._unflushed_ids: dict[tuple[str, int], str] = {}  # (episode, seq) -> event id
        self._ingesting_ids: dict[tuple[str, int], str] = {}  # the same, of the batch being ingested
        # episode -> newest seq, of every stream in SQLite or the journal (a stream missing has no
        # row anywhere): the agent's appends check forks against it without asking SQLite, whose
        # lock the ingester holds for milliseconds at a time.
        self._heads: dict[str, int] = {}
        self._heads_limit = HEADS_LIMIT
        self._retry_at, self._backoff = 0.0, 0.0  # after a failed ingest
        self.ingest_error: str | None = None
        """Why the last move of journaled rows into SQLite failed (it is retried), else None."""
        try:
            self._journal = self._open_journal() if use_journal else None
            if self._journal is None and Path(f"{self.path}.journal").exists():
                self._open_journal().close()  # what a journaled run left is stored before anything else
        except BaseException:
            self._conn.close()
            raise
        self._ingest_wanted = threading.Event()
        self._stopping = threading.Event()
        self._ingester = threading.Thread(target=self._ingest_loop, name="outbox-ingest", daemon=True)
        if self._journal is not None:
            self._ingester.start()
        self._committer = (
            GroupCommitter(self._conn, self._lock, on_commit=self._wake) if durability == "power" else None
        )
        self._checkpointer = WalCheckpointer(
            self._conn,
            self._lock,
            interval_s=checkpoint_interval_s,
            restart_frames=wal_restart_frames,
            wal_file=Path(f"{self.path}-wal"),
        )

    def _create_schema(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION, *MIGRATIONS):
            self._conn.close()
            raise RuntimeError(
                f"{self.path} has outbox schema {version}; this release reads {SCHEMA_VERSION}"
                f" and migrates {sorted(MIGRATIONS)}"
            )
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in SCHEMA:
                    self._conn.execute(statement)
                for statement in MIGRATIONS.get(version, ()):
                    self._conn.execute(statement)
                # A report for a position past the newest row could only mislabel a future row.
                self._conn.execute(
                    "DELETE FROM delivery WHERE pos > (SELECT coalesce(max(pos), 0) FROM outbox)"
                )
                self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            except BaseException:
                _rollback(self._conn)
                raise
            self._conn.execute("COMMIT")

    # -- the journal ------------------------------------------------------------------------------

    def _open_journal(self) -> Journal:
        """Open the journal and ingest what it holds past the stored offset (a previous process's
        appends that had not reached SQLite when it died)."""
        found = self._conn.execute("SELECT generation, ingested FROM journal WHERE id = 1").fetchone()
        generation, ingested = (int(found[0]), int(found[1])) if found else (0, 0)
        journal, rows = Journal.open(Path(f"{self.path}.journal"), generation, ingested)
        with self._lock:
            stored = self._commit_batch(rows, journal.generation, journal.end)
            self._heads = self._stored_heads()
        if rows:
            log.info(
                "outbox %s: %d journaled events ingested at open (%d new)", self.path, len(rows), len(stored)
            )
        return journal

    def _commit_batch(self, rows: Sequence[Row], generation: int, end: int) -> list[tuple[int, Row]]:
        """Insert journaled `rows` and the journal offset they end at, in one transaction; returns
        the (pos, row) of those newly stored. Caller holds `_lock`.

        Rows go in as multi-row INSERTs, `INGEST_CHUNK` to a statement. Each statement is one
        `sqlite3_step`, and the sqlite3 module releases the GIL around every step: one step per row
        made the agent's thread and this one hand the GIL back and forth dozens of times a batch,
        each hand-over a thread wake-up (docs/capture.md). Positions are consecutive when every row
        of a statement went in; when some did not (a replay of rows already stored), the batch is
        redone row by row."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            stored = self._insert_chunks(rows)
            if stored is None:
                _rollback(self._conn)
                self._conn.execute("BEGIN IMMEDIATE")
                stored = self._insert_each(rows)
            self._conn.execute(INGESTED, (generation, end))
        except BaseException:
            _rollback(self._conn)
            raise
        self._conn.execute("COMMIT")
        return stored

    def _insert_chunks(self, rows: Sequence[Row]) -> list[tuple[int, Row]] | None:
        cursor = self._insert
        stored: list[tuple[int, Row]] = []
        for start in range(0, len(rows), INGEST_CHUNK):
            chunk = rows[start : start + INGEST_CHUNK]
            cursor.execute(_insert_many(len(chunk)), list(itertools.chain.from_iterable(chunk)))
            if cursor.rowcount != len(chunk):
                return None
            last = int(cursor.lastrowid or 0)
            stored += zip(range(last - len(chunk) + 1, last + 1), chunk, strict=True)
        return stored

    def _insert_each(self, rows: Sequence[Row]) -> list[tuple[int, Row]]:
        # Skips rows already stored; a row whose position holds another event cannot come from
        # this outbox's appends, which check for forks: it is logged, not stored.
        cursor = self._insert
        stored: list[tuple[int, Row]] = []
        for row in rows:
            cursor.execute(INSERT, row)
            if cursor.rowcount == 1:
                stored.append((int(cursor.lastrowid or 0), row))
                continue
            held = self._conn.execute(
                "SELECT event_id FROM outbox WHERE episode_id = ? AND seq = ?", (row[0], row[1])
            ).fetchone()
            if held is not None and held[0] != row[2]:
                log.error("outbox %s: journaled event %s forks %s#%s (held by %s); not stored",
                          self.path, row[2], row[0], row[1], held[0])  # fmt: skip
        return stored

    def _ingest_locked(self) -> None:
        """Move every journaled row into SQLite (caller holds `_lock`); on a SQLite error the rows
        stay journaled, in order, for the next try."""
        journal = self._journal
        if journal is None:
            return
        with self._jlock:  # swaps only: the agents' appends wait for this lock
            if not self._unflushed:
                return
            batch, self._unflushed = self._unflushed, []
            self._ingesting_ids, self._unflushed_ids = self._unflushed_ids, {}
            generation, end = journal.generation, journal.end
        try:
            stored = self._commit_batch(batch, generation, end)
        except BaseException as exc:
            with self._jlock:
                self._unflushed[:0] = batch
                self._ingesting_ids.update(self._unflushed_ids)
                self._unflushed_ids, self._ingesting_ids = self._ingesting_ids, {}
            self.ingest_error = f"journaled events cannot be stored in SQLite: {exc}"
            raise
        self.ingest_error = None
        with self._jlock:
            self._ingesting_ids = {}
            if journal.end >= JOURNAL_RESET_BYTES:
                self._restart_journal(journal)
        if len(self._heads) > self._heads_limit:
            self._rebuild_heads()
        self._commits += 1
        if self._relay_reads and stored:
            if len(self._fresh) + len(stored) > FRESH_LIMIT:
                self._forget_fresh()  # the relay is far behind: it reads SQLite until it catches up
            else:
                self._fresh.extend(stored)
        self._wake()

    def _stored_heads(self) -> dict[str, int]:
        # Under `_lock`: each stream's newest seq in SQLite.
        found = self._conn.execute("SELECT episode_id, max(seq) FROM outbox GROUP BY episode_id")
        return {str(episode_id): int(seq) for episode_id, seq in found}

    def _rebuild_heads(self) -> None:
        # Under `_lock`, after an ingest: nothing reaches SQLite meanwhile, so SQLite plus what is
        # journaled now is every stream there is. Pruned streams are forgotten.
        stored = self._stored_heads()
        with self._jlock:
            for row in self._unflushed:
                stored[row[0]] = max(stored.get(row[0], -1), row[1])
            self._heads = stored
        self._heads_limit = max(HEADS_LIMIT, 2 * len(stored))

    def _ingest_for_read(self) -> None:
        # Under `_lock`: what is journaled is stored first, so every read sees it.
        try:
            self._ingest_locked()
        except sqlite3.Error as exc:
            raise CaptureUnavailable(
                f"the outbox {self.path} cannot store its journaled events: {exc}"
            ) from exc

    def _restart_journal(self, journal: Journal) -> None:
        # Under `_jlock`, after an ingest: start the file over, the rows appended since the ingest
        # began written again first (journal.py says why this order is safe). If they would not fit
        # in front of themselves, or the disk refuses, it goes on where it is and tries next time.
        generation = journal.generation + 1
        try:
            journal.restart(generation, [journal_frame(row, generation) for row in self._unflushed])
        except ValueError:  # appends outran the ingest (a flood): the file grows; the next ingest tries
            log.debug("outbox %s: more was appended during the ingest than it ingested", self.path)
        except OSError as exc:
            log.warning("outbox %s: the journal could not start over (%s); it goes on", self.path, exc)

    def _ingest_loop(self) -> None:
        # Wakes at the first row journaled after an ingest, lets `INGEST_LINGER_S` of rows
        # gather, and moves them.
        while not self._closed:
            if not self._ingest_wanted.wait(0.5) or self._stopping.wait(INGEST_LINGER_S):
                continue  # nothing to do yet, or closing (`close` ingests the rest)
            self._ingest_wanted.clear()
            with self._lock:
                if self._closed:
                    return
                self._try_ingest()

    def _try_ingest(self) -> None:
        # Under `_lock`. A failure leaves the rows journaled (durable) and is retried after a backoff.
        if time.monotonic() < self._retry_at:
            return
        try:
            self._ingest_locked()
        except sqlite3.Error:
            self._backoff = min(1.0, max(0.01, self._backoff * 2))
            self._retry_at = time.monotonic() + self._backoff
            log.warning("outbox %s: %s; retrying in %.2f s", self.path, self.ingest_error, self._backoff)
        else:
            self._backoff = 0.0

    def _journal_append(self, row: Row) -> None:
        """Append one row to the journal: the agent's path. A position past the stream's newest
        (`_heads`) is new and needs no SQLite; at or before it, a retry or a fork, SQLite is asked."""
        episode_id, seq, event_id = row[0], row[1], row[2]
        if len(self._unflushed) >= UNFLUSHED_LIMIT:
            self._catch_up()
        done = False
        with self._jlock:
            self._check_open()
            held = self._held((episode_id, seq))
            if held is None:
                head = self._heads.get(episode_id, -1)
                if seq > head:  # a position past the newest anywhere: new
                    self._journal_write(row, head)
                    done = True
            elif held == event_id:
                return  # a retry of an append that is journaled already
            else:
                raise StreamConflict(f"{episode_id}#{seq} already holds event {held}, not {event_id}")
        if done:
            self._after_append()
            return
        # At or before the stream's newest seq: a retry or a fork of a stored event, or a gap left
        # by pruning. SQLite says which (rows still journaled, `_held` has).
        with self._lock, self._jlock:
            self._check_open()
            held = self._held((episode_id, seq))
            if held is None:
                found = self._conn.execute(
                    "SELECT event_id FROM outbox WHERE episode_id = ? AND seq = ?", (episode_id, seq)
                ).fetchone()
                held = found[0] if found else None
            if held == event_id:
                return
            if held is not None:
                raise StreamConflict(f"{episode_id}#{seq} already holds event {held}, not {event_id}")
            top = self._conn.execute(
                "SELECT coalesce(max(seq), -1) FROM outbox WHERE episode_id = ?", (episode_id,)
            ).fetchone()[0]
            self._journal_write(row, max(int(top), self._heads.get(episode_id, -1)))
        self._after_append()

    def _held(self, position: tuple[str, int]) -> str | None:
        # Under `_jlock`: the event journaled at `position` and not yet stored in SQLite, if any.
        return self._unflushed_ids.get(position) or self._ingesting_ids.get(position)

    def _check_open(self) -> None:
        if self._closed:
            raise OutboxClosed(f"the outbox {self.path} is closed")

    def _catch_up(self) -> None:
        # Back-pressure: too much is journaled and not ingested (SQLite has been failing). The
        # append ingests it first, on its own thread, or is refused.
        with self._lock:
            self._check_open()
            try:
                self._ingest_locked()
            except sqlite3.Error as exc:
                raise CaptureUnavailable(
                    f"the outbox {self.path} cannot store events: {len(self._unflushed)} wait to be"
                    f" ingested and SQLite refuses them: {exc}"
                ) from exc

    def _journal_write(self, row: Row, head: int) -> None:
        # Under `_jlock`; `head` is the stream's newest seq before this row.
        journal = self._journal
        assert journal is not None
        journal.append(journal_frame(row, journal.generation))  # CaptureUnavailable if it fails
        self._unflushed.append(row)
        self._unflushed_ids[(row[0], row[1])] = row[2]
        self._heads[row[0]] = max(head, row[1])

    def _after_append(self) -> None:
        if len(self._unflushed) >= INGEST_BACKLOG:  # the ingester thread is behind: help it
            if self._lock.acquire(blocking=False):  # unless the lock is busy: a later append will
                try:
                    if not self._closed:
                        self._try_ingest()
                finally:
                    self._lock.release()
        elif not self._ingest_wanted.is_set():  # a plain read: skip the Event's lock when set
            self._ingest_wanted.set()

    # -- appending ---------------------------------------------------------------------------------

    def append(self, event: Event, doc: bytes | None = None) -> None:
        """Store `event`; returns once it is durable (see the module docstring for how durable).

        `doc`, when given, is the event's structured JSON as the chain sealed it, stored as is.
        Idempotent: a repeated append of the same event is a no-op. `StreamConflict` if another
        event holds its (episode, seq).
        """
        self._append_rows([encode_row(event, self._clock(), doc)])

    def append_many(self, events: Sequence[Event], docs: Sequence[bytes] | None = None) -> None:
        """Store all of `events` in one transaction, or none of them (on a conflict); `docs` are
        their sealed JSON, as for `append`."""
        now = self._clock()
        if docs is not None and len(docs) != len(events):
            raise ValueError(f"{len(events)} events but {len(docs)} docs")
        sealed = docs if docs is not None else [None] * len(events)
        self._append_rows([encode_row(event, now, doc) for event, doc in zip(events, sealed, strict=True)])

    def _append_rows(self, rows: list[Row]) -> None:
        try:
            self._store(rows)
        except sqlite3.Error as exc:  # a full disk, an I/O error: the event is not stored
            raise CaptureUnavailable(f"the outbox {self.path} cannot store events: {exc}") from exc

    def _store(self, rows: list[Row]) -> None:
        if self._committer is not None:
            self._submit(rows)
            return
        if self._journal is not None and len(rows) == 1:
            self._journal_append(rows[0])
            return
        with self._lock:
            if self._closed:
                raise OutboxClosed(f"the outbox {self.path} is closed")
            if self._journal is None:
                self._insert_now(rows)
            else:
                # A batch goes straight to SQLite, after what is journaled, holding the journal so
                # that no append slips a fork past either check meanwhile.
                self._ingest_locked()
                with self._jlock:
                    rows = [row for row in rows if not self._journaled(row)]
                    self._insert_now(rows)
                    for row in rows:
                        self._heads[row[0]] = max(self._heads.get(row[0], -1), row[1])
            self._commits += 1
        self._wake()

    def _journaled(self, row: Row) -> bool:
        """Whether `row` is journaled and not yet ingested (`StreamConflict` if another event is)."""
        held = self._held((row[0], row[1]))
        if held is not None and held != row[2]:
            raise StreamConflict(f"{row[0]}#{row[1]} already holds event {held}, not {row[2]}")
        return held is not None

    def _insert_now(self, rows: list[Row]) -> None:
        # Under `_lock`: the rows in one transaction, on this thread.
        if len(rows) == 1:
            insert_rows(self._insert, rows)  # autocommit: the INSERT is its own transaction
            if self._relay_reads and self._insert.rowcount == 1:
                if len(self._fresh) >= FRESH_LIMIT:
                    self._forget_fresh()  # the relay is far behind: it reads SQLite until it catches up
                self._fresh.append((int(self._insert.lastrowid or 0), rows[0]))
        elif rows:
            self._forget_fresh()  # positions unknown here: the relay reads them from SQLite
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                insert_rows(self._conn, rows)
            except BaseException:
                _rollback(self._conn)
                raise
            self._conn.execute("COMMIT")

    def _forget_fresh(self) -> None:
        # Appenders only add to the right end, which is safe beside a reader's pops; emptying it
        # is not, so it waits for the reader.
        with self._fresh_read:
            self._fresh.clear()

    def _submit(self, rows: list[Row]) -> None:
        assert self._committer is not None
        try:
            future = self._committer.submit(rows)
        except RuntimeError:
            raise OutboxClosed(f"the outbox {self.path} is closed") from None
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
        """The connection's journal mode, synchronous level, locking mode and page size, as SQLite
        reports them."""
        with self._lock:
            journal = self._conn.execute("PRAGMA journal_mode").fetchone()[0]
            level = self._conn.execute("PRAGMA synchronous").fetchone()[0]
            locking = self._conn.execute("PRAGMA locking_mode").fetchone()[0]
            page_size = self._conn.execute("PRAGMA page_size").fetchone()[0]
        return {
            "journal_mode": str(journal),
            "synchronous": {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[level],
            "locking_mode": str(locking),
            "page_size": str(page_size),
        }

    # -- reading ----------------------------------------------------------------------------------

    def _read(
        self, sql: str, params: Sequence[Any] | dict[str, Any] = (), *, ingest: bool = True
    ) -> list[Any]:
        with self._lock:
            if self._closed:
                raise OutboxClosed(f"the outbox {self.path} is closed")
            if ingest:
                self._ingest_for_read()
            return self._conn.execute(sql, params).fetchall()

    def pending(self, after_pos: int, limit: int) -> list[OutboxRow]:
        """Undelivered rows after `after_pos`, in append order (see `pending_records`)."""
        return [OutboxRow(*record, None, None, None) for record in self.pending_records(after_pos, limit)]

    def pending_records(self, after_pos: int, limit: int) -> list[PendingRecord]:
        """Undelivered rows after `after_pos`, in append order, as plain tuples (what a relay
        process is sent: cheaper to build and to pickle than `OutboxRow`s).

        From memory when the oldest row committed here but not yet read is the very next one after
        `after_pos` (nothing can sit between them, and no row is marked delivered before the relay
        has read it); from SQLite otherwise.

        Rows still in the journal are not pending yet: they take their positions when ingested (by
        the append that fills a batch, the ingester thread after a lull, or any other read). The
        relay polling here does not ingest them, or its thread would take the agents' GIL for it.
        """
        self._relay_reads = True
        with self._fresh_read:
            fresh = self._fresh
            while fresh and fresh[0][0] <= after_pos:
                fresh.popleft()
            if fresh and fresh[0][0] == after_pos + 1:
                taken: list[PendingRecord] = []
                while fresh and len(taken) < limit and fresh[0][0] == after_pos + 1 + len(taken):
                    pos, (episode_id, seq, event_id, _, doc, appended_at) = fresh.popleft()
                    taken.append((pos, event_id, episode_id, seq, doc, appended_at))
                return taken
        sql = (
            "SELECT o.pos, o.event_id, o.episode_id, o.seq, o.doc, o.appended_at FROM outbox o"
            f" WHERE o.pos > ? AND {UNSETTLED} ORDER BY o.pos LIMIT ?"
        )
        return [tuple(values) for values in self._read(sql, (after_pos, limit), ingest=False)]

    def pending_count(self, upto_pos: int | None = None) -> int:
        """How many rows (up to `upto_pos`) await a delivery report.

        Counts from the delivered floor (every row at or below it is delivered), which only moves
        up, so each call scans the undelivered tail, not the whole retained table. The tail is
        counted `PENDING_COUNT_SLICE` positions per hold of the lock: a 50,000-row backlog (a broker
        outage) takes about 30 ms to count, which the ingester, the relay and readers would
        otherwise wait out on every health check. Exact when nothing moves; while the relay marks
        rows, a count of a moment, as any count of a moving backlog is.
        """
        with self._lock:
            if self._closed:
                raise OutboxClosed(f"the outbox {self.path} is closed")
            self._ingest_for_read()
            if self._first_unsettled() is None:
                return 0
            start = self._floor
            stop = upto_pos if upto_pos is not None else self._newest_pos()
        sql = f"SELECT count(*) FROM outbox o WHERE o.pos > ? AND o.pos <= ? AND {UNSETTLED}"
        total = 0
        while start < stop:
            end = min(start + PENDING_COUNT_SLICE, stop)
            with self._lock:
                if self._closed:
                    raise OutboxClosed(f"the outbox {self.path} is closed")
                total += int(self._conn.execute(sql, (start, end)).fetchone()[0])
            start = end
        return total

    def _newest_pos(self) -> int:
        # Under `_lock`.
        return int(self._conn.execute("SELECT coalesce(max(pos), 0) FROM outbox").fetchone()[0])

    def all_settled(self, upto_pos: int | None = None) -> bool:
        """Whether every row (up to `upto_pos`) has its final word, a delivery report or a
        rejection: what a relay's `flush` waits for.

        It stops at the oldest row still waiting where `pending_count` counts the whole tail: for
        a 50,000-row backlog that count holds the lock for about 30 ms, and a flush polling it every
        20 ms kept the relay it waited for from its own reads and marks."""
        with self._lock:
            if self._closed:
                raise OutboxClosed(f"the outbox {self.path} is closed")
            self._ingest_for_read()
            first = self._first_unsettled()
        return first is None or (upto_pos is not None and first > upto_pos)

    def _first_unsettled(self) -> int | None:
        # Under `_lock`: the oldest row still waiting (an index walk from the delivered floor), and
        # the floor moved up to just below it.
        first = self._conn.execute(
            f"SELECT min(o.pos) FROM outbox o WHERE o.pos > ? AND {UNSETTLED}", (self._floor,)
        ).fetchone()[0]
        if first is None:
            self._floor = self._newest_pos()
            return None
        self._floor = int(first) - 1
        return int(first)

    def last_pos(self) -> int:
        """Position of the newest row (0 when empty)."""
        return int(self._read("SELECT coalesce(max(pos), 0) FROM outbox")[0][0])

    def rows(self, episode_id: str | None = None) -> list[OutboxRow]:
        """Stored rows (of one episode, in seq order; else all, in append order)."""
        if episode_id is None:
            return [decode_row(v) for v in self._read(f"{ROWS} ORDER BY o.pos")]
        sql = f"{ROWS} WHERE o.episode_id = ? ORDER BY o.seq"
        return [decode_row(v) for v in self._read(sql, (episode_id,))]

    def rejected_rows(self, limit: int = 100) -> list[OutboxRow]:
        """The oldest `limit` rows the relay gave up on for good (too large for the broker,
        unreadable), in append order: kept here, never pruned, for an operator to inspect
        (`OutboxRow.rejected` says why)."""
        sql = f"{ROWS} WHERE d.rejected IS NOT NULL ORDER BY o.pos LIMIT ?"
        return [decode_row(v) for v in self._read(sql, (limit,))]

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
        """Record delivery reports (the first for a row stands), `MARK_CHUNK` per transaction,
        letting appenders in between."""
        if not marks:
            return
        with self._fresh_read:
            if self._fresh and max(m.pos for m in marks) >= self._fresh[0][0]:
                self._fresh.clear()  # marked before it was read: `pending` asks SQLite instead
        for start in range(0, len(marks), MARK_CHUNK):
            if start:
                time.sleep(YIELD_S)  # a waiting appender gets the lock and the GIL
            with self._bookkeeping() as conn:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.executemany(MARK, marks[start : start + MARK_CHUNK])
                except BaseException:
                    _rollback(conn)
                    raise
                conn.execute("COMMIT")

    def prune(self, delivered_before: float, *, heads_before: float | None = None, limit: int = 64) -> int:
        """Delete up to `limit` rows delivered before `delivered_before`, with their delivery
        reports; returns how many.

        An episode's last event survives until `heads_before` (never, when None), so its stream
        can be resumed; the newest row of the table always survives.
        """
        params = {"cutoff": delivered_before, "heads_cutoff": heads_before or -1.0, "limit": limit}
        with self._bookkeeping() as conn:
            doomed = conn.execute(PRUNABLE, params).fetchall()
            if not doomed:
                return 0
            conn.execute("BEGIN IMMEDIATE")
            try:
                deleted = conn.executemany("DELETE FROM outbox WHERE pos = ?", doomed).rowcount
                conn.executemany("DELETE FROM delivery WHERE pos = ?", doomed)
            except BaseException:
                _rollback(conn)
                raise
            conn.execute("COMMIT")
            return int(deleted)

    @contextmanager
    def _bookkeeping(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, for writes that need no fsync of their own (a lost
        delivery mark or prune only means a re-send or a later prune), in any durability."""
        with self._lock:
            if self._closed:
                raise OutboxClosed(f"the outbox {self.path} is closed")
            relaxed = self._append_sync != "NORMAL"
            if relaxed:
                self._conn.execute("PRAGMA synchronous=NORMAL")
            try:
                yield self._conn
            finally:
                if relaxed:
                    self._conn.execute(f"PRAGMA synchronous={self._append_sync}")

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
        with self._lock, self._jlock:
            if self._closed:
                return
            self._closed = True
        if self._committer is not None:
            self._committer.close()
        if self._ingester.is_alive():
            self._stopping.set()
            self._ingest_wanted.set()
            self._ingester.join()
        self._checkpointer.close()
        with self._lock:
            if self._journal is not None:
                self._close_journal(self._journal)
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._insert.close()
            self._conn.close()  # releases the file's locks

    def _close_journal(self, journal: Journal) -> None:
        # Under `_lock`, closed to appends: the last ingest, then an empty journal for the next open.
        try:
            self._ingest_locked()
        except sqlite3.Error as exc:  # the rows stay journaled: the next open ingests them
            log.error("outbox %s: %d journaled events not ingested at close (%s); the next open will",
                      self.path, len(self._unflushed), exc)  # fmt: skip
        else:
            if journal.end > HEADER_SIZE:
                with self._jlock:
                    self._restart_journal(journal)
                self._conn.execute(INGESTED, (journal.generation, journal.end))
        journal.close()

    def __enter__(self) -> SqliteOutbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
