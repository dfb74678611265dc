"""Deterministic stand-ins for time and ids, so two rollouts of the same script are identical."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """A monotonic clock in seconds that moves only when told to, or by `tick` per reading."""

    def __init__(self, tick: float = 0.0) -> None:
        self.now = 1000.0
        self.tick = tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class SequentialIds:
    """`prefix-0001`, `prefix-0002`, ..."""

    def __init__(self, prefix: str = "id") -> None:
        self.prefix = prefix
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"{self.prefix}-{self.count:04d}"


class FixedWallClock:
    """UTC datetimes one millisecond apart, from a fixed start."""

    def __init__(self) -> None:
        self.now = datetime(2025, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now
