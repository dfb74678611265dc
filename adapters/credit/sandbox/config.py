"""Sandbox settings: where the world lives, the documents' extraction damage, fault injection."""

from __future__ import annotations

import secrets

from pydantic import Field

from adapters.credit.documents.noise import NoiseConfig
from adapters.faults import FaultConfig, FaultRule
from schemas.base import Contract


class SandboxConfig(Contract):
    """Everything `create_app` needs."""

    db_url: str = "sqlite://"
    """SQLAlchemy URL of the world store; the default is an in-memory database."""
    world_path: str | None = None
    """A world snapshot (JSON) to seed from instead of the built-in seed world."""
    reset: bool = False
    """Reseed even when the database already holds a world."""
    document_noise: NoiseConfig | None = None
    """OCR damage in the documents served for PDF-table periods (and text cells of workbooks);
    none by default, so the documents read back exactly."""
    faults: FaultConfig = Field(default_factory=FaultConfig)
    """Fault injection at start-up (changeable at runtime through /admin/faults)."""
    admin_token: str = Field(default_factory=lambda: secrets.token_urlsafe(24), min_length=16, repr=False)
    """Bearer token of the `/admin` routes (world, faults, noise); a fresh random one by default,
    so a sandbox nobody configured has no open control routes. `SandboxAdmin(url, token=...)`."""


__all__ = ["FaultConfig", "FaultRule", "SandboxConfig"]
