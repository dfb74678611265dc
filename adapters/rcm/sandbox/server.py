"""Running the RCM sandbox: in a background thread (tests) and an admin client for its control routes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from adapters.rcm.models import PayerRules, Practice
from adapters.rcm.sandbox.app import create_app
from adapters.rcm.sandbox.config import SandboxConfig
from adapters.rcm.world import World
from adapters.sandbox.admin import SandboxAdmin as AdminClient
from adapters.serving import serve_in_thread as serve_app_in_thread


@contextmanager
def serve_in_thread(config: SandboxConfig, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve the sandbox with uvicorn on `host` (a free port when 0); yields the base URL."""
    with serve_app_in_thread(create_app(config), host, port, name="rcm-sandbox") as url:
        yield url


class SandboxAdmin(AdminClient[World]):
    """Client for the sandbox's /admin routes: worlds, faults, payer rules, bulletins, the practice."""

    world_type = World

    def set_rules(self, payer_id: str, rules: PayerRules) -> None:
        self._ok(self._client.put(f"/admin/payers/{payer_id}/rules", json=rules.model_dump(mode="json")))

    def publish_bulletin(self, bulletin_id: str) -> None:
        """The payer publishes a pending bulletin (dated the world's today)."""
        self._ok(self._client.post(f"/admin/bulletins/{bulletin_id}/publish"))

    def set_practice(self, practice: Practice) -> None:
        self._ok(self._client.put("/admin/practice", json=practice.model_dump(mode="json")))
