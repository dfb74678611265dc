"""`GET /metrics`: the process's Prometheus metrics, for the scraper, without a token (as
`/healthz`); it names no episode, work item or PHI, only counts. Left out of the OpenAPI document:
it is the scraper's, not the API's."""

from __future__ import annotations

from functools import cache

from fastapi import APIRouter, Request, Response
from prometheus_client import CollectorRegistry

from bridge.metrics.exposition import CONTENT_TYPE_LATEST, process_registry, render

router = APIRouter()


@cache
def _process_only() -> CollectorRegistry:
    return process_registry()


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """The registry the composition root gave the services (the process's own without one)."""
    registry = getattr(request.app.state.services, "metrics", None)
    if not isinstance(registry, CollectorRegistry):
        registry = _process_only()
    return Response(render(registry), media_type=CONTENT_TYPE_LATEST)
