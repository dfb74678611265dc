"""When to retry a model request and how long to wait: exponential backoff, jitter, Retry-After."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


@dataclass(frozen=True)
class RetryPolicy:
    """Retry schedule for one model request.

    Chat completions have no side effects, so every overload (429), server error (5xx), request
    timeout (408) and transport failure is safe to retry; other 4xx mean the request itself is
    wrong (context too long, bad auth) and retrying only burns the budget.
    """

    max_attempts: int = 4
    """Attempts in all, the first included."""
    base_delay_s: float = 0.5
    """Backoff cap after the first failure; doubles per failure."""
    max_delay_s: float = 8.0
    """Largest backoff cap."""
    max_retry_after_s: float = 60.0
    """A server asking to wait longer than this is treated as unavailable: give up at once
    rather than hold an episode worker for minutes."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if not 0 <= self.base_delay_s <= self.max_delay_s:
            raise ValueError("need 0 <= base_delay_s <= max_delay_s")
        if self.max_retry_after_s < 0:
            raise ValueError("max_retry_after_s must be >= 0")

    def retries_status(self, status: int) -> bool:
        """Whether an HTTP status is worth another attempt."""
        return status in (408, 429) or status >= 500

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based).

        "Equal jitter": uniform in [cap/2, cap]. The lower half keeps the backoff growing, the
        random upper half spreads out clients that failed together (one overloaded server, many
        episode workers).
        """
        cap = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return rng.uniform(cap / 2, cap)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds a `Retry-After` header asks for (delta-seconds or an HTTP-date); None if unusable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
