"""Capture's state as metrics: the relay's counters, the backlog and the delivery latency.

Delivery latency is how long an event waited in the outbox before its delivery report came: the
collector reads the rows delivered since its last scrape from the outbox's files (read-only, as
the relay reads them) and adds each wait to a histogram, so it counts every delivered event once.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
"""Seconds: a healthy relay delivers in milliseconds; minutes mean the broker is away."""

_COUNTERS = (
    ("delivered", "Events whose delivery report this relay received."),
    ("failed", "Failed delivery attempts (each such event is produced again)."),
    ("rejected", "Events given up on for good (kept in the outbox, never shipped)."),
    ("producer_restarts", "Kafka producers replaced after a fatal error or a stall."),
    ("relay_restarts", "Relay processes started again after one died."),
)


class DeliveryLatency:
    """A cumulative histogram of append → delivery-report waits, fed from the outbox's files."""

    def __init__(self, outbox: Path, buckets: tuple[float, ...] = BUCKETS) -> None:
        self.outbox, self.buckets = outbox, buckets
        self.counts = [0] * (len(buckets) + 1)
        self.total = 0.0
        self._after = 0
        self._lock = threading.Lock()

    def _waits(self) -> Iterator[float]:
        delivery = self.outbox.with_name(self.outbox.name + ".delivery")
        if not self.outbox.exists() or not delivery.exists():
            return
        conn = sqlite3.connect(f"file:{self.outbox}?mode=ro", uri=True, timeout=1.0)
        try:
            conn.execute("ATTACH DATABASE ? AS d", (f"file:{delivery}?mode=ro",))
            rows = conn.execute(
                "SELECT s.pos, s.delivered_at - o.appended_at FROM d.delivery s JOIN main.outbox o"
                " ON o.pos = s.pos WHERE s.pos > ? AND s.rejected IS NULL ORDER BY s.pos",
                (self._after,),
            ).fetchall()
        except sqlite3.Error:
            return
        finally:
            conn.close()
        for pos, wait in rows:
            self._after = max(self._after, int(pos))
            yield max(0.0, float(wait))

    def sample(self) -> tuple[list[tuple[str, float]], float]:
        """Read what was delivered since the last call; the cumulative buckets and the sum."""
        with self._lock:
            for wait in self._waits():
                index = next((i for i, bound in enumerate(self.buckets) if wait <= bound), len(self.buckets))
                self.counts[index] += 1
                self.total += wait
            running, out = 0, []
            for bound, count in zip((*self.buckets, float("inf")), self.counts, strict=True):
                running += count
                out.append(("+Inf" if bound == float("inf") else str(bound), float(running)))
            return out, self.total


class CaptureCollector(Collector):
    """`loopline_capture_*`: from `health()` (capture's `CaptureService.health`) and, given the
    outbox file, the delivery latency."""

    def __init__(self, health: Callable[[], Mapping[str, Any]], outbox: Path | None = None) -> None:
        self.health = health
        self.latency = DeliveryLatency(outbox) if outbox is not None else None

    def collect(self) -> Iterator[Any]:
        state = self.health()
        up = GaugeMetricFamily("loopline_capture_up", "1 when capture is healthy (its /healthz says ok).")
        up.add_metric([], 1.0 if state.get("status") == "ok" else 0.0)
        yield up
        for name, help_ in (
            ("pending", "Events in the outbox without a delivery report (in flight included)."),
            ("in_flight", "Events handed to the producer that have no report yet."),
            ("backlog_age_s", "Seconds the oldest undelivered event has waited."),
        ):
            value = state.get(name)
            if isinstance(value, int | float):
                metric = (
                    "loopline_capture_backlog_age_seconds"
                    if name == "backlog_age_s"
                    else f"loopline_capture_{name}"
                )
                gauge = GaugeMetricFamily(metric, help_)
                gauge.add_metric([], float(value))
                yield gauge
        for name, help_ in _COUNTERS:
            value = state.get(name)
            if isinstance(value, int | float):
                counter = CounterMetricFamily(f"loopline_capture_{name}", help_)
                counter.add_metric([], float(value))
                yield counter
        if self.latency is not None:
            buckets, total = self.latency.sample()
            histogram = HistogramMetricFamily(
                "loopline_capture_delivery_seconds", "Seconds from the outbox append to the delivery report."
            )
            histogram.add_metric([], buckets, total)
            yield histogram
