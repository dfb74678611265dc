"""The worker's probes: `/healthz` (the process serves) and `/readyz` (its Temporal worker polls
its task queue), on a small HTTP listener of their own (a Temporal worker has none)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field


@dataclass
class Probes:
    """What `/readyz` answers: set `ready` once the worker polls, clear it when it stops."""

    queue: str
    ready: bool = False
    _server: asyncio.Server | None = field(default=None, repr=False)

    async def start(self, host: str, port: int) -> None:
        """Listen on `host:port` until `close`."""
        self._server = await asyncio.start_server(self._answer, host, port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def answer(self, path: str) -> tuple[int, dict[str, object]]:
        """The status and body for a GET of `path`."""
        if path == "/healthz":
            return 200, {"status": "ok"}
        if path == "/readyz":
            return (200 if self.ready else 503), {"ready": self.ready, "queue": self.queue}
        return 404, {"detail": "not found"}

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
            parts = request.split(b" ", 2)
            status, body = self.answer(parts[1].decode("ascii", "replace") if len(parts) > 1 else "")
            payload = json.dumps(body).encode()
            writer.write(
                f"HTTP/1.1 {status} {'OK' if status == 200 else 'Unavailable'}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
                "Connection: close\r\n\r\n".encode()
                + payload
            )
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass  # a probe that hung up or sent garbage gets nothing
        finally:
            writer.close()
