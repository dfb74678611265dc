"""Running the credit sandbox: in a background thread (tests, the demo) and an admin client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from adapters.credit.documents.noise import NoiseConfig
from adapters.credit.models import CreditPackage, FundPolicy
from adapters.credit.sandbox.app import create_app
from adapters.credit.sandbox.config import SandboxConfig
from adapters.credit.world import World
from adapters.sandbox.admin import SandboxAdmin as AdminClient
from adapters.serving import serve_in_thread as serve_app_in_thread


@contextmanager
def serve_in_thread(
    config: SandboxConfig, host: str = "127.0.0.1", port: int = 0, world: World | None = None
) -> Iterator[str]:
    """Serve the sandbox with uvicorn on `host` (a free port when 0); yields the base URL."""
    with serve_app_in_thread(create_app(config, world), host, port, name="credit-sandbox") as url:
        yield url


class SandboxAdmin(AdminClient[World]):
    """Client for the sandbox's /admin routes: worlds, faults, document damage, policy, packages."""

    world_type = World

    def set_document_noise(self, noise: NoiseConfig | None) -> None:
        body = None if noise is None else noise.model_dump(mode="json")
        self._ok(self._client.put("/admin/document-noise", json=body))

    def set_policy(self, policy: FundPolicy) -> None:
        self._ok(self._client.put("/admin/fund-policy", json=policy.model_dump(mode="json")))

    def put_package(self, package: CreditPackage) -> None:
        """A package arrives (or is replaced) in the deal system."""
        self._put_model(f"/admin/packages/{package.package_id}", package)
