"""What the relay reports: a metrics snapshot, and its errors without flooding the log."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

LOG_INTERVAL_S = 5.0


@dataclass(frozen=True)
class RelayMetrics:
    """A snapshot of the relay's state."""

    pending: int
    """Outbox rows without a delivery report (in flight included)."""
    in_flight: int
    """Rows handed to the producer that have no report yet."""
    delivered: int
    """Successful delivery reports received by this relay."""
    failed: int
    """Failed delivery attempts (each such row is produced again)."""
    rejected: int
    """Rows given up on for good (too large, unreadable): kept in the outbox, not shipped."""
    producer_restarts: int
    """Producers discarded after a fatal error or passes without a delivery."""
    last_error: str | None
    """The most recent error, in words."""
    last_error_at: float | None
    """When it happened (Unix time)."""
    running: bool
    """Whether the relay (its thread, or its process) is alive."""
    relay_restarts: int = 0
    """Relay processes started again after one died (`ProcessRelay`); 0 for a relay thread."""


class ErrorReport:
    """Keeps the newest error for metrics; logs one line per interval, with a count.

    A broker outage fails every queued message at once: one warning per message would bury
    everything else in the log.
    """

    def __init__(self, log: logging.Logger, interval_s: float = LOG_INTERVAL_S) -> None:
        self._log = log
        self._interval_s = interval_s
        self.last: tuple[str, float] | None = None
        self._last_logged = float("-inf")
        self._unlogged = 0

    def record(self, message: str, *, always_log: bool = False) -> None:
        """Remember `message` as the newest error; log it unless one was logged recently
        (`always_log` for rare turning points, such as replacing the producer)."""
        now = time.time()
        self.last = (message, now)
        self._unlogged += 1
        if always_log or now - self._last_logged >= self._interval_s:
            more = (
                f" (and {self._unlogged - 1} more errors since the last report)" if self._unlogged > 1 else ""
            )
            self._log.warning("%s%s", message, more)
            self._last_logged, self._unlogged = now, 0
