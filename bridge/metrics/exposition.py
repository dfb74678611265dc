"""A registry rendered in Prometheus' text format, on a route or on a port of its own."""

from __future__ import annotations

from threading import Thread
from wsgiref.simple_server import WSGIServer

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, start_http_server
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

__all__ = ["CONTENT_TYPE_LATEST", "process_registry", "render", "serve_metrics"]


def process_registry() -> CollectorRegistry:
    """A registry with the process, GC and platform collectors every deployable reports."""
    registry = CollectorRegistry(auto_describe=True)
    ProcessCollector(registry=registry)
    GCCollector(registry=registry)
    PlatformCollector(registry=registry)
    return registry


def render(registry: CollectorRegistry) -> bytes:
    """The registry's metrics as the text exposition format."""
    return generate_latest(registry)


def serve_metrics(registry: CollectorRegistry, port: int, host: str = "0.0.0.0") -> tuple[WSGIServer, Thread]:
    """Serve `/metrics` for a worker that has no HTTP app (a daemon thread); port 0 picks one."""
    server, thread = start_http_server(port, addr=host, registry=registry)
    return server, thread
