"""Rolling per-tool latency percentiles, so a rule can call one call slow against its own tool."""

from __future__ import annotations

import math
from collections import deque


class LatencyBaseline:
    """The `percentile` of each tool's last `window` latencies; None until `min_samples` were seen.

    Kept in memory: after a restart it warms up again over `min_samples` calls, and until then
    only the absolute threshold applies.
    """

    def __init__(self, *, window: int, percentile: float, min_samples: int) -> None:
        self._window = window
        self._percentile = percentile
        self._min_samples = min_samples
        self._samples: dict[str, deque[float]] = {}

    def baseline(self, tool: str) -> float | None:
        """The tool's percentile latency, or None while it has too few samples."""
        samples = self._samples.get(tool)
        if samples is None or len(samples) < self._min_samples:
            return None
        ordered = sorted(samples)
        return ordered[min(len(ordered) - 1, math.ceil(self._percentile * len(ordered)) - 1)]

    def observe(self, tool: str, latency_ms: float) -> None:
        """Record one call's latency."""
        if math.isfinite(latency_ms):
            self._samples.setdefault(tool, deque(maxlen=self._window)).append(latency_ms)
