"""`WalCheckpointer`: SQLite WAL checkpoints on a background thread, off the appenders' path.

SQLite's automatic checkpoint runs inside whichever commit crosses the threshold, and it copies
pages and fsyncs: a commit that normally takes tens of microseconds then takes milliseconds. The
stores turn it off on their writing connections (`wal_autocheckpoint` only as a far backstop) and
let this thread checkpoint instead. The checkpoint's fsync is also what bounds, in `process`
durability, how much a power cut can take: about one interval.

Under sustained writes a PASSIVE checkpoint never catches up with the newest frames, and SQLite
only restarts a WAL that is fully copied, so the file would grow without bound. Past
`restart_frames` the tail left is copied while holding the store's write lock (writers wait for
that short tail, about one fsync), and the next write starts the WAL from its beginning again.

A store in EXCLUSIVE locking mode (the outbox) has one connection for everything: the checkpointer
then borrows it, under the store's lock, and the appenders wait for each checkpoint. Checkpointing
every second keeps that wait to copying about a second of appends.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import nullcontext
from pathlib import Path

AUTOCHECKPOINT_BACKSTOP = 16384
"""`wal_autocheckpoint` for writing connections: 64 MB of 4 KB pages, reached only if this thread stalls."""


class WalCheckpointer:
    """Checkpoints one SQLite file every `interval_s` on its own thread and connection."""

    def __init__(
        self,
        target: Path | sqlite3.Connection,
        write_lock: threading.Lock | None = None,
        *,
        interval_s: float = 1.0,
        restart_frames: int = 4096,
        wal_file: Path | None = None,
    ) -> None:
        """Checkpoint the file at `target` on a connection of its own, or the store whose one
        connection `target` is (then every checkpoint holds `write_lock`, which must be given, and
        `wal_file`, when given, is fsynced first, outside the lock)."""
        self._borrowed = isinstance(target, sqlite3.Connection)
        if self._borrowed and write_lock is None:
            raise ValueError("a borrowed connection is shared: pass the lock that guards it")
        self._conn = (
            target
            if isinstance(target, sqlite3.Connection)
            else sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=30.0)
        )
        self._restart_frames = restart_frames
        self._write_lock = write_lock
        self._wal_path = wal_file
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, args=(interval_s,), name="wal-checkpoint", daemon=True
        )
        self._thread.start()

    def checkpoint(self) -> None:
        """One checkpoint now: the bulk without blocking writers, then the tail if the WAL is big."""
        with self._lock:
            if self._write_lock is not None and self._borrowed:
                self._presync()
                with self._write_lock:  # nothing else uses the connection meanwhile: it copies all
                    self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                return
            _, frames, _ = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if frames > self._restart_frames:  # writes during that checkpoint left a tail
                with self._write_lock or nullcontext():
                    self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

    def _presync(self) -> None:
        # The checkpoint fsyncs the WAL before copying it; most of that flush is done here, before
        # the appenders are shut out, so what they wait for is mostly the database file's fsync.
        if self._wal_path is None:
            return
        try:
            fd = os.open(self._wal_path, os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def _loop(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            try:
                self.checkpoint()
            except sqlite3.Error:
                continue  # the next round tries again; the WAL only grows meanwhile

    def close(self) -> None:
        """Stop the thread and close its connection."""
        self._stop.set()
        self._thread.join()
        if not self._borrowed:
            with self._lock:
                self._conn.close()
