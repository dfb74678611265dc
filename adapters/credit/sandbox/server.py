"""Running the credit sandbox: in a background thread (tests, the demo) and an admin client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from adapters.credit.documents.noise import NoiseConfig
from adapters.credit.models import CreditPackage, FundPolicy
from adapters.credit.sandbox.app import create_app
from adapters.credit.sandbox.config import SandboxConfig
from adapters.credit.world import World
from adapters.faults import FaultConfig
from adapters.serving import serve_in_thread as serve_app_in_thread


@contextmanager
def serve_in_thread(
    config: SandboxConfig, host: str = "127.0.0.1", port: int = 0, world: World | None = None
) -> Iterator[str]:
    """Serve the sandbox with uvicorn on `host` (a free port when 0); yields the base URL."""
    with serve_app_in_thread(create_app(config, world), host, port, name="credit-sandbox") as url:
        yield url


class SandboxAdmin:
    """Client for the sandbox's /admin routes (with its admin token)."""

    def __init__(self, base_url: str, token: str, client: httpx.Client | None = None) -> None:
        self._client = client or httpx.Client(base_url=base_url, timeout=10)
        self._client.headers["Authorization"] = f"Bearer {token}"

    def _ok(self, response: httpx.Response) -> Any:
        response.raise_for_status()
        return response.json()

    def reset(self) -> None:
        self._ok(self._client.post("/admin/reset"))

    def load(self, world: World) -> None:
        body = world.model_dump_json()
        self._ok(self._client.put("/admin/world", content=body, headers={"content-type": "application/json"}))

    def world(self) -> World:
        return World.model_validate(self._ok(self._client.get("/admin/world")))

    def set_faults(self, faults: FaultConfig) -> None:
        self._ok(self._client.put("/admin/faults", json=faults.model_dump(mode="json")))

    def set_document_noise(self, noise: NoiseConfig | None) -> None:
        self._ok(
            self._client.put(
                "/admin/document-noise", json=None if noise is None else noise.model_dump(mode="json")
            )
        )

    def set_policy(self, policy: FundPolicy) -> None:
        self._ok(self._client.put("/admin/fund-policy", json=policy.model_dump(mode="json")))

    def put_package(self, package: CreditPackage) -> None:
        """A package arrives (or is replaced) in the deal system."""
        body = package.model_dump_json()
        self._ok(self._client.put(f"/admin/packages/{package.package_id}", content=body,
                                  headers={"content-type": "application/json"}))  # fmt: skip

    def close(self) -> None:
        self._client.close()
