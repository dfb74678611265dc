"""Sandbox settings: where the world lives, payer-rule overrides, and fault injection."""

from __future__ import annotations

import secrets
from typing import Literal

from pydantic import Field

from adapters.rcm.models import PayerRules
from schemas.base import Contract


class FaultRule(Contract):
    """A fault for one endpoint (tool name) or all (`*`), at a rate, optionally only the first N calls."""

    endpoint: str = "*"
    """Tool name whose endpoint misbehaves (e.g. `get_remittance`), or `*` for every endpoint."""
    kind: Literal["latency", "timeout", "http_error"]
    """latency: answer late; timeout: stall past any client timeout; http_error: answer `status`."""
    rate: float = Field(default=1.0, ge=0, le=1)
    """Share of matching requests that get the fault (decided by the seed, so reproducible)."""
    status: int = Field(default=503, ge=400, le=599)
    """HTTP status for `http_error` (4xx validation errors or 5xx server errors)."""
    delay_ms: float = Field(default=0.0, ge=0, le=600_000)
    """Added latency for `latency`; stall length for `timeout` (0 = the config's `timeout_s`)."""
    first_n: int | None = Field(default=None, ge=0)
    """Only the first N requests to the endpoint (counted from the last fault change)."""
    apply_write: bool = True
    """For a timed-out write: whether the change takes effect before the stall (the outcome the
    client cannot know)."""


class FaultConfig(Contract):
    """Fault injection, deterministic by seed: per request, a generator seeded from (seed, endpoint,
    request number) decides, so the same request sequence meets the same faults."""

    seed: int = 0
    """Seed of the fault decisions."""
    latency_ms: float = Field(default=0.0, ge=0, le=600_000)
    """Latency added to every response."""
    timeout_rate: float = Field(default=0.0, ge=0, le=1)
    """Share of all requests that stall (a timeout for the client)."""
    error_5xx_rate: float = Field(default=0.0, ge=0, le=1)
    """Share of all requests answered 503."""
    error_4xx_rate: float = Field(default=0.0, ge=0, le=1)
    """Share of all requests answered 422 (a validation error from the live system)."""
    timeout_s: float = Field(default=30.0, ge=0, le=600)
    """How long a stall lasts."""
    rules: tuple[FaultRule, ...] = ()
    """Per-endpoint faults, checked before the global rates; the first match wins."""


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
