"""Running the sandbox: in a background thread (tests) and an admin client for its control routes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from adapters.rcm.models import PayerRules, Practice
from adapters.rcm.sandbox.app import create_app
from adapters.rcm.sandbox.config import FaultConfig, SandboxConfig
from adapters.rcm.world import World
from adapters.serving import serve_in_thread as serve_app_in_thread


@contextmanager
def serve_in_thread(config: SandboxConfig, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve the sandbox with uvicorn on `host` (a free port when 0); yields the base URL."""
    with serve_app_in_thread(create_app(config), host, port, name="rcm-sandbox") as url:
        yield url


class SandboxAdmin:
    """Client for the sandbox's /admin routes: worlds, payer rules, faults (with its admin token)."""

    def __init__(self, base_url: str, token: str, client: httpx.Client | None = None) -> None:
        self._client = client or httpx.Client(base_url=base_url, timeout=10)
        self._client.headers["Authorization"] = f"Bearer {token}"

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

    def publish_bulletin(self, bulletin_id: str) -> None:
        """The payer publishes a pending bulletin (dated the world's today)."""
        self._ok(self._client.post(f"/admin/bulletins/{bulletin_id}/publish"))

    def set_practice(self, practice: Practice) -> None:
        self._ok(self._client.put("/admin/practice", json=practice.model_dump(mode="json")))

    def close(self) -> None:
        self._client.close()


__all__ = ["SandboxAdmin", "SandboxConfig", "serve_in_thread"]
