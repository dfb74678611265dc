"""Group commit: one writer thread commits the appends of many threads in one fsync'd transaction.

SQLite has no group commit of its own: with `synchronous=FULL` every transaction pays one fsync
(about 0.3-4 ms on this class of disk), and concurrent writers pay theirs one after another. Here
each appender queues its rows with a future and waits; the writer takes everything queued, commits
it as one transaction and resolves all the futures, so N waiting appenders share one fsync.

A fork in one appender's rows must not fail its neighbours in the batch, so each request runs in
its own SAVEPOINT and only that request is rolled back.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from bridge.capture.outbox_rows import Row, insert_rows
from bridge.capture.sink import StreamConflict


@dataclass
class _Request:
    rows: Sequence[Row]
    future: Future[None] = field(default_factory=Future)


_STOP = object()


class GroupCommitter:
    """The writer thread behind `SqliteOutbox(durability="power")`."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        lock: threading.Lock,
        *,
        max_rows: int = 2048,
        on_commit: Callable[[], None] = lambda: None,
    ) -> None:
        self._conn = conn
        self._lock = lock
        self._max_rows = max_rows
        self._on_commit = on_commit
        self._queue: queue.SimpleQueue[_Request | object] = queue.SimpleQueue()
        self._closed = False
        self.commits = 0
        """Transactions committed so far (each is one fsync)."""
        self._gate = threading.Lock()  # orders submit() against close(): nothing queued after STOP
        self._thread = threading.Thread(target=self._run, name="outbox-group-commit", daemon=True)
        self._thread.start()

    def submit(self, rows: Sequence[Row]) -> Future[None]:
        """Queue `rows` for the next commit; the future resolves once they are on disk."""
        request = _Request(rows)
        with self._gate:
            if self._closed:
                raise RuntimeError("the outbox is closed")
            self._queue.put(request)
        return request.future

    def close(self) -> None:
        """Commit what is queued, then stop the thread."""
        with self._gate:
            if self._closed:
                return
            self._closed = True
            self._queue.put(_STOP)
        self._thread.join()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is _STOP:
                return
            assert isinstance(first, _Request)
            batch, size = [first], len(first.rows)
            while size < self._max_rows:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    stopping = True
                    break
                assert isinstance(item, _Request)
                batch.append(item)
                size += len(item.rows)
            self._commit(batch)

    def _commit(self, batch: list[_Request]) -> None:
        outcomes: list[BaseException | None] = []
        try:
            with self._lock:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for request in batch:
                        outcomes.append(self._one(request))
                    self._conn.execute("COMMIT")  # the one fsync every request in the batch shares
                    self.commits += 1
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
        except Exception as exc:  # disk full, I/O error: every appender in the batch must hear it
            for request in batch:
                request.future.set_exception(exc)
            return
        self._on_commit()
        for request, outcome in zip(batch, outcomes, strict=True):
            if outcome is None:
                request.future.set_result(None)
            else:
                request.future.set_exception(outcome)

    def _one(self, request: _Request) -> BaseException | None:
        self._conn.execute("SAVEPOINT request")
        try:
            insert_rows(self._conn, request.rows)
        except StreamConflict as conflict:
            self._conn.execute("ROLLBACK TO request")
            self._conn.execute("RELEASE request")
            return conflict
        self._conn.execute("RELEASE request")
        return None
