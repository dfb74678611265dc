"""Healthcare revenue-cycle denial management: tools, pure domain logic, sim and live backends.

`RCM_TOOLS` are the tools the agent sees; `SimBackend` runs them over an in-memory `World`,
`live.LiveBackend` over HTTP against the sandbox (`sandbox.create_app`) or a real system; those two
load httpx, FastAPI and SQLAlchemy, so they are imported from their modules.
"""

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
    "Patient",
    "PatientTransfer",
    "Payer",
    "PayerRules",
    "Practice",
    "Provider",
    "RemitLine",
    "Remittance",
    "ServiceLine",
    "SimBackend",
    "Violation",
    "World",
    "WriteOff",
    "apply",
    "seed_world",
]
