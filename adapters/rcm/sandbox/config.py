"""Sandbox settings: where the world lives, payer-rule overrides, and fault injection."""

from __future__ import annotations

import secrets

from pydantic import Field

from adapters.faults import FaultConfig, FaultRule
from adapters.rcm.models import PayerRules
from schemas.base import Contract


class SandboxConfig(Contract):
    """Everything `create_app` needs."""

    db_url: str = "sqlite://"
    """SQLAlchemy URL of the world store; the default is an in-memory database."""
    world_path: str | None = None
    """A world snapshot (JSON) to seed from instead of the built-in seed world."""
    reset: bool = False
    """Reseed even when the database already holds a world."""
    payer_rules: dict[str, PayerRules] = Field(default_factory=dict)
    """Payer id → rules replacing the seed's."""
    write_off_approval_limit: float | None = None
    """Override of the practice's write-off approval limit (USD)."""
    faults: FaultConfig = Field(default_factory=FaultConfig)
    """Fault injection at start-up (changeable at runtime through /admin/faults)."""
    admin_token: str = Field(default_factory=lambda: secrets.token_urlsafe(24), min_length=16, repr=False)
    """Bearer token of the `/admin` routes (world, faults, rules); a fresh random one by default,
    so a sandbox nobody configured has no open control routes. `SandboxAdmin(url, token=...)`."""


__all__ = ["FaultConfig", "FaultRule", "SandboxConfig"]
