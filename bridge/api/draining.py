"""`Draining`: once the bridge drains, new API requests are refused with 503 and `Retry-After`,
while `/healthz` keeps answering (and says `draining`)."""

from __future__ import annotations

import json
from typing import Any

from bridge.api.body_limit import ASGIApp, Receive, Scope, Send


class Draining:
    """Answers 503 to every request but the health probe while `state.draining` is true."""

    def __init__(self, app: ASGIApp, state: Any) -> None:
        self.app, self.state = app, state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and getattr(self.state, "draining", False) and scope["path"] != "/healthz":
            body = json.dumps({"detail": "the bridge is shutting down and takes no new work"}).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"retry-after", b"5"),
                (b"content-length", str(len(body)).encode()),
            ]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
