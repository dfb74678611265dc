"""The worker's probes on its faust web port: `/healthz` (the process serves) and `/readyz` (it has
joined its consumer group and holds partitions, and no rebalance is under way)."""

from __future__ import annotations

from typing import Any

import faust
from faust.web import Request, Response, View


def readiness(app: faust.App) -> tuple[bool, dict[str, Any]]:
    """Whether `app` works its share of the topics now, and what the probe answers with."""
    assigned = sorted(f"{tp.topic}:{tp.partition}" for tp in app.consumer.assignment())
    ready = bool(assigned) and not app.rebalancing
    return ready, {"ready": ready, "rebalancing": app.rebalancing, "assigned": assigned}


def add_health_pages(app: faust.App) -> None:
    """Serve `/healthz` and `/readyz` beside faust's own pages."""

    @app.page("/healthz")
    async def healthz(web: View, request: Request) -> Response:
        return web.json({"status": "ok"})

    @app.page("/readyz")
    async def readyz(web: View, request: Request) -> Response:
        ready, body = readiness(app)
        return web.json(body, status=200 if ready else 503)
