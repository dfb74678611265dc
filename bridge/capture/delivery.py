"""`DeliveryLog`: the relay's own connection to an outbox, and the only writer of its delivery file.

A relay thread or process opens it from the outbox's path to read the rows still waiting, write each
row's final word in position order, prune delivered rows and checkpoint the WAL.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from bridge.capture.outbox import WAL_RESTART_PAGES, connect, transaction
from bridge.capture.outbox_rows import MARK, PRUNABLE, ROWS, UNSETTLED, DeliveryMark, OutboxRow


class DeliveryLog:
    """The relay's side of one outbox file. For one thread at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists():
            raise FileNotFoundError(f"no outbox at {path}")
        self._conn = connect(path)

    def pending(self, after_pos: int, limit: int) -> list[OutboxRow]:
        """Rows after `after_pos` still waiting for their final word, in append order."""
        sql = f"{ROWS} WHERE o.pos > ? AND {UNSETTLED} ORDER BY o.pos LIMIT ?"
        return [OutboxRow(*values) for values in self._conn.execute(sql, (after_pos, limit))]

    def mark(self, marks: Sequence[DeliveryMark]) -> None:
        """Record final words on rows, in position order, in one transaction of the delivery file
        (the first word on a row stands)."""
        if marks:
            with transaction(self._conn):
                self._conn.executemany(MARK, sorted(marks))

    def prune(
        self, delivered_before: float, *, heads_before: float | None = None, budget_s: float = 0.05
    ) -> int:
        """Delete rows delivered before `delivered_before` with their reports, 64 per transaction,
        for at most `budget_s`; returns how many went. An episode's last event survives until
        `heads_before` (forever when None), and the newest row of the table always does."""
        params = {"cutoff": delivered_before, "heads_cutoff": heads_before or -1.0, "limit": 64}
        deadline, total = time.monotonic() + budget_s, 0
        while doomed := self._conn.execute(PRUNABLE, params).fetchall():
            with transaction(self._conn):
                total += self._conn.executemany("DELETE FROM main.outbox WHERE pos = ?", doomed).rowcount
                self._conn.executemany("DELETE FROM d.delivery WHERE pos = ?", doomed)
            if time.monotonic() >= deadline:
                break
        return total

    def checkpoint(self, restart_pages: int = WAL_RESTART_PAGES) -> None:
        """Copy both files' WAL into the databases without holding appends up (PASSIVE); once the
        events file's WAL holds `restart_pages`, copy the few frames appended meanwhile too, holding
        appends for that moment (RESTART), so the next append starts the WAL over at its beginning."""
        if self._conn.execute("PRAGMA main.wal_checkpoint(PASSIVE)").fetchone()[1] >= restart_pages:
            self._conn.execute("PRAGMA main.wal_checkpoint(RESTART)").fetchall()
        self._conn.execute("PRAGMA d.wal_checkpoint(PASSIVE)").fetchall()

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
