"""Report each edge case once per time window, by fingerprint."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta


class Deduplicator:
    """Admits a fingerprint when it was not reported within `window`; pure, with an injectable clock.

    It remembers what it admitted (bounded, least recently used first out). What it forgot, or
    what another worker reported, the caller passes in as `last_reported` (from the `edge_cases`
    projection), so a restarted detector does not report again what was just reported.
    """

    def __init__(
        self, window: timedelta, *, clock: Callable[[], datetime] | None = None, max_entries: int = 100_000
    ) -> None:
        if window < timedelta(0):
            raise ValueError("window must not be negative")
        self.window = window
        self._clock = clock or (lambda: datetime.now(UTC))
        self._max = max_entries
        self._last: OrderedDict[str, datetime] = OrderedDict()

    def remembers(self, fingerprint: str) -> bool:
        """Whether the last report of `fingerprint` is held here (no need to look it up)."""
        return fingerprint in self._last

    def admit(self, fingerprint: str, last_reported: datetime | None = None) -> bool:
        """True (and remember now) when `fingerprint` is due to be reported; False for a duplicate."""
        now = self._clock()
        last = self._last.get(fingerprint)
        if last_reported is not None and (last is None or last_reported > last):
            last = last_reported
        if last is not None and now - last < self.window:
            self._remember(fingerprint, last)
            return False
        self._remember(fingerprint, now)
        return True

    def forget(self, fingerprint: str) -> None:
        """Undo an admission whose report could not be written."""
        self._last.pop(fingerprint, None)

    def _remember(self, fingerprint: str, at: datetime) -> None:
        self._last[fingerprint] = at
        self._last.move_to_end(fingerprint)
        while len(self._last) > self._max:
            self._last.popitem(last=False)
