"""`DeliveryLog`: the relay's own connection to an outbox, and the only writer of its delivery file.

A relay thread and a relay process open it alike, from the outbox's path. It reads the rows still
waiting, writes each row's final word (a delivery report or a rejection) in position order, prunes
delivered rows and checkpoints the WAL, none of which holds an append up for more than a moment.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from bridge.capture.outbox import WAL_RESTART_PAGES, connect
from bridge.capture.outbox_rows import MARK, PENDING, PRUNABLE, DeliveryMark, OutboxRow


class DeliveryLog:
    """The relay's side of one outbox file. For one thread at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists():
            raise FileNotFoundError(f"no outbox at {path}")
        self._conn = connect(path)

    def pending(self, after_pos: int, limit: int) -> list[OutboxRow]:
        """Rows after `after_pos` still waiting for their final word, in append order."""
        return [OutboxRow(*values) for values in self._conn.execute(PENDING, (after_pos, limit))]

    def mark(self, marks: Sequence[DeliveryMark]) -> None:
        """Record final words on rows, in position order, in one transaction of the delivery file
        (the first word on a row stands)."""
        if not marks:
            return
        self._conn.execute("BEGIN")
        try:
            self._conn.executemany(MARK, sorted(marks))
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def prune(
        self, delivered_before: float, *, heads_before: float | None = None, budget_s: float = 0.05
    ) -> int:
        """Delete rows delivered before `delivered_before` with their reports, 64 per transaction,
        for at most `budget_s`; returns how many went. An episode's last event survives until
        `heads_before` (forever when None), and the newest row of the table always does."""
        params = {"cutoff": delivered_before, "heads_cutoff": heads_before or -1.0, "limit": 64}
        deadline, total = time.monotonic() + budget_s, 0
        while doomed := self._conn.execute(PRUNABLE, params).fetchall():
            self._conn.execute("BEGIN")
            try:
                total += self._conn.executemany("DELETE FROM main.outbox WHERE pos = ?", doomed).rowcount
                self._conn.executemany("DELETE FROM d.delivery WHERE pos = ?", doomed)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
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
