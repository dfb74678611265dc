"""Healthcare revenue-cycle denial management: tools, pure domain logic, sim and live backends.

`RCM_TOOLS` are the tools the agent sees; `SimBackend` runs them over an in-memory `World`,
`LiveBackend` over HTTP against the sandbox (`create_app`) or a real system.
"""

import importlib
from typing import TYPE_CHECKING, Any

from adapters.rcm.errors import DomainError
from adapters.rcm.fixtures import SEED_CASES, seed_world
from adapters.rcm.logic import TOOL_LOGIC, apply
from adapters.rcm.models import (
    Acknowledgment,
    Address,
    Adjustment,
    Claim,
    Coverage,
    Document,
    Patient,
    Payer,
    PayerRules,
    Practice,
    Provider,
    RemitLine,
    Remittance,
    ServiceLine,
)
from adapters.rcm.records import (
    Appeal,
    Authorization,
    Escalation,
    PatientTransfer,
    Violation,
    WriteOff,
)
from adapters.rcm.sim import SimBackend
from adapters.rcm.tools import RCM_TOOLS, RCM_TOOLS_BY_NAME
from adapters.rcm.world import World

if TYPE_CHECKING:
    from adapters.rcm.live import LiveBackend
    from adapters.rcm.sandbox import (
        FaultConfig,
        FaultRule,
        SandboxAdmin,
        SandboxConfig,
        create_app,
        serve_in_thread,
    )

# The live backend and the sandbox pull in httpx, FastAPI, uvicorn and SQLAlchemy; training
# environments only need the sim, so those names load on first use.
_LAZY = {
    "LiveBackend": "adapters.rcm.live",
    "FaultConfig": "adapters.rcm.sandbox",
    "FaultRule": "adapters.rcm.sandbox",
    "SandboxAdmin": "adapters.rcm.sandbox",
    "SandboxConfig": "adapters.rcm.sandbox",
    "create_app": "adapters.rcm.sandbox",
    "serve_in_thread": "adapters.rcm.sandbox",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'adapters.rcm' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "RCM_TOOLS",
    "RCM_TOOLS_BY_NAME",
    "SEED_CASES",
    "TOOL_LOGIC",
    "Acknowledgment",
    "Address",
    "Adjustment",
    "Appeal",
    "Authorization",
    "Claim",
    "Coverage",
    "Document",
    "DomainError",
    "Escalation",
    "FaultConfig",
    "FaultRule",
    "LiveBackend",
    "Patient",
    "PatientTransfer",
    "Payer",
    "PayerRules",
    "Practice",
    "Provider",
    "RemitLine",
    "Remittance",
    "SandboxAdmin",
    "SandboxConfig",
    "ServiceLine",
    "SimBackend",
    "Violation",
    "World",
    "WriteOff",
    "apply",
    "create_app",
    "seed_world",
    "serve_in_thread",
]
