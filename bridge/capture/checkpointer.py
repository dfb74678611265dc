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
"""

from __future__ import annotations

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
        path: Path,
        *,
        interval_s: float = 1.0,
        restart_frames: int = 4096,
        write_lock: threading.Lock | None = None,
    ) -> None:
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        self._restart_frames = restart_frames
        self._write_lock = write_lock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, args=(interval_s,), name="wal-checkpoint", daemon=True
        )
        self._thread.start()

    def checkpoint(self) -> None:
        """One checkpoint now: the bulk without blocking writers, then the tail if the WAL is big."""
        with self._lock:
            _, frames, _ = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if frames > self._restart_frames:  # writes during that checkpoint left a tail
                with self._write_lock or nullcontext():
                    self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

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
        with self._lock:
            self._conn.close()
