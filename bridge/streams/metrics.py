"""The stream worker's registry: projector lag, the projections' counts, and the process."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from bridge.metrics.exposition import process_registry, serve_metrics
from bridge.metrics.projections import ProjectionCollector
from bridge.store import Engine
from bridge.streams.config import StreamsConfig
from bridge.streams.lag import ProjectorLagCollector, Watermarks, kafka_watermarks

__all__ = ["serve_metrics", "streams_registry"]


def streams_registry(
    config: StreamsConfig, engine: Engine, watermarks: Watermarks | None = None
) -> CollectorRegistry:
    """What a stream worker's `/metrics` reports; `watermarks` defaults to the configured broker's."""
    registry = process_registry()
    client: dict[str, str] = {"bootstrap.servers": config.bootstrap_servers}
    if config.tls_files is not None:
        ca, cert, key = config.tls_files
        client.update(
            {
                "security.protocol": "SSL",
                "ssl.ca.location": str(ca),
                "ssl.certificate.location": str(cert),
                "ssl.key.location": str(key),
            }
        )
    marks = watermarks or kafka_watermarks(client, config.events_topic)
    registry.register(ProjectorLagCollector(config.events_topic, marks, engine))
    registry.register(ProjectionCollector(engine))
    return registry
