"""The bridge process's registry: capture, the projections it reads, and the process itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from bridge.metrics.capture import CaptureCollector
from bridge.metrics.exposition import process_registry
from bridge.metrics.projections import ProjectionCollector
from bridge.store import Engine


def bridge_registry(
    health: Callable[[], Mapping[str, Any]] | None, outbox: Path | None, engine: Engine | None
) -> CollectorRegistry:
    """What the bridge's `/metrics` reports; each part only when the process has it."""
    registry = process_registry()
    if health is not None:
        registry.register(CaptureCollector(health, outbox))
    if engine is not None:
        registry.register(ProjectionCollector(engine))
    return registry
