"""What every sandbox is configured with: where the world lives, fault injection, the admin token."""

from __future__ import annotations

import secrets

from pydantic import Field

from adapters.faults import FaultConfig
from schemas.base import Contract


class SandboxBase(Contract):
    """The settings every domain's `SandboxConfig` starts from."""

    db_url: str = "sqlite://"
    """SQLAlchemy URL of the world store; the default is an in-memory database."""
    world_path: str | None = None
    """A world snapshot (JSON) to seed from instead of the built-in seed world."""
    reset: bool = False
    """Reseed even when the database already holds a world."""
    faults: FaultConfig = Field(default_factory=FaultConfig)
    """Fault injection at start-up (changeable at runtime through /admin/faults)."""
    admin_token: str = Field(default_factory=lambda: secrets.token_urlsafe(24), min_length=16, repr=False)
    """Bearer token of the `/admin` routes; a fresh random one by default, so a sandbox nobody
    configured has no open control routes. `SandboxAdmin(url, token=...)`."""
