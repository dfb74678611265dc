"""serve-policy's Prometheus metrics: chat completions by model and status with their latency,
tokens, tool calls the server withheld as invalid, and the models loaded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.gc_collector import GCCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from training.serve.pool import PolicyPool


class _Loaded(Collector):
    def __init__(self, pool: PolicyPool[Any]) -> None:
        self.pool = pool

    def collect(self) -> Iterator[Any]:
        models = GaugeMetricFamily(
            "loopline_policy_models_loaded", "Models served: the base and each LoRA adapter.", labels=["kind"]
        )
        served = self.pool.served()
        models.add_metric(["base"], float(sum(s.folder is None for s in served)))
        models.add_metric(["adapter"], float(sum(s.folder is not None for s in served)))
        yield models


class ServeMetrics:
    """One server's registry and the instruments its routes update."""

    def __init__(self, pool: PolicyPool[Any]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        ProcessCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.registry.register(_Loaded(pool))
        self.requests = Counter(
            "loopline_policy_completions",
            "Chat completions answered, by model and HTTP status (refused ones under model '-').",
            ["model", "status"],
            registry=self.registry,
        )
        self.seconds = Histogram(
            "loopline_policy_completion_seconds",
            "Seconds to answer a chat completion, by model.",
            ["model"],
            registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
        )
        self.tokens = Counter(
            "loopline_policy_tokens",
            "Tokens, by model and kind (prompt, completion).",
            ["model", "kind"],
            registry=self.registry,
        )
        self.invalid_calls = Counter(
            "loopline_policy_invalid_tool_calls",
            "Tool calls a model wrote that the request's tools refuse (reported, never presented).",
            ["model"],
            registry=self.registry,
        )
