"""Running the sandbox: in a background thread (tests) and an admin client for its control routes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

from adapters.rcm.models import PayerRules, Practice
from adapters.rcm.sandbox.app import create_app
from adapters.rcm.sandbox.config import FaultConfig, SandboxConfig
from adapters.rcm.world import World


@contextmanager
def serve_in_thread(config: SandboxConfig, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve the sandbox with uvicorn on `host` (a free port when 0); yields the base URL."""
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), host=host, port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, name="rcm-sandbox", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the sandbox server did not start")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class SandboxAdmin:
    """Client for the sandbox's /admin routes: worlds, payer rules, faults."""

    def __init__(self, base_url: str, client: httpx.Client | None = None) -> None:
        self._client = client or httpx.Client(base_url=base_url, timeout=10)

    def _ok(self, response: httpx.Response) -> Any:
        response.raise_for_status()
        return response.json()

    def reset(self) -> None:
        self._ok(self._client.post("/admin/reset"))

    def load(self, world: World) -> None:
        self._ok(
            self._client.put(
                "/admin/world", content=world.model_dump_json(), headers={"content-type": "application/json"}
            )
        )

    def world(self) -> World:
        return World.model_validate(self._ok(self._client.get("/admin/world")))

    def set_faults(self, faults: FaultConfig) -> None:
        self._ok(self._client.put("/admin/faults", json=faults.model_dump(mode="json")))

    def set_rules(self, payer_id: str, rules: PayerRules) -> None:
        self._ok(self._client.put(f"/admin/payers/{payer_id}/rules", json=rules.model_dump(mode="json")))

    def set_practice(self, practice: Practice) -> None:
        self._ok(self._client.put("/admin/practice", json=practice.model_dump(mode="json")))

    def close(self) -> None:
        self._client.close()


__all__ = ["SandboxAdmin", "SandboxConfig", "serve_in_thread"]
