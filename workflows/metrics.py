"""The workflow worker's Prometheus metrics: every activity it runs (by type and outcome, with its
duration), the promotion stages the workflows reach, and the drafts in the draft store by stage.

Activities are counted by a Temporal interceptor, so no activity does metrics work of its own; the
drafts are read from the store when `/metrics` is scraped.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client import Counter as PromCounter
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from temporalio import activity
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from adapters.drafting.store import DraftStore, PromotionStatus
from bridge.metrics.exposition import process_registry, serve_metrics


class ActivityMetrics(Interceptor):
    """Counts and times every activity the worker runs; `record_stage` calls also count the stage."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.runs = PromCounter(
            "loopline_workflow_activities",
            "Activities run by this worker, by activity type and outcome (completed, failed).",
            ["activity", "outcome"],
            registry=registry,
        )
        self.seconds = Histogram(
            "loopline_workflow_activity_seconds",
            "How long each activity took, by activity type.",
            ["activity"],
            registry=registry,
            buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0, 120.0, 600.0, 3600.0),
        )
        self.stages = PromCounter(
            "loopline_promotion_stages",
            "Promotion stages the workflows reached (record_stage), by stage.",
            ["stage"],
            registry=registry,
        )

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Inbound(next, self)

    def observe(self, name: str, args: Sequence[Any], ok: bool, seconds: float) -> None:
        """One finished activity."""
        self.runs.labels(name, "completed" if ok else "failed").inc()
        self.seconds.labels(name).observe(seconds)
        stage = getattr(args[0], "stage", None) if args and name == "record_stage" and ok else None
        if isinstance(stage, str):
            self.stages.labels(stage).inc()


class _Inbound(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, metrics: ActivityMetrics) -> None:
        super().__init__(next)
        self.metrics = metrics

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        name, start, ok = activity.info().activity_type, time.perf_counter(), False
        try:
            result = await self.next.execute_activity(input)
            ok = True
            return result
        finally:
            self.metrics.observe(name, input.args, ok, time.perf_counter() - start)


class DraftStages(Collector):
    """`loopline_promotion_drafts`: the drafts in the store, by the stage they stand at."""

    def __init__(self, statuses: Callable[[], list[PromotionStatus]]) -> None:
        self.statuses = statuses

    def collect(self) -> Iterator[Any]:
        counts = Counter(status.stage for status in self.statuses())
        drafts = GaugeMetricFamily(
            "loopline_promotion_drafts", "Task drafts by current stage.", labels=["stage"]
        )
        for stage, n in sorted(counts.items()):
            drafts.add_metric([stage], float(n))
        yield drafts


def workflow_registry(store: DraftStore) -> tuple[CollectorRegistry, ActivityMetrics]:
    """The worker's registry (process, activities, drafts) and the interceptor that feeds it."""
    registry = process_registry()
    metrics = ActivityMetrics(registry)
    registry.register(DraftStages(store.statuses))
    return registry, metrics


def worker_metrics(port: int | None, store: DraftStore, host: str = "127.0.0.1") -> list[Interceptor]:
    """Serve `/metrics` on `host:port` (none when `port` is None) and the interceptors that count."""
    if port is None:
        return []
    registry, metrics = workflow_registry(store)
    serve_metrics(registry, port, host)
    return [metrics]
