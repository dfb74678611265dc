"""RCM sandbox settings: the common ones (`adapters.sandbox.SandboxBase`) and payer-rule overrides."""

from __future__ import annotations

from pydantic import Field

from adapters.faults import FaultConfig, FaultRule
from adapters.rcm.models import PayerRules
from adapters.sandbox.config import SandboxBase


class SandboxConfig(SandboxBase):
    """Everything `create_app` needs."""

    payer_rules: dict[str, PayerRules] = Field(default_factory=dict)
    """Payer id → rules replacing the seed's."""
    write_off_approval_limit: float | None = None
    """Override of the practice's write-off approval limit (USD)."""


__all__ = ["FaultConfig", "FaultRule", "SandboxConfig"]
