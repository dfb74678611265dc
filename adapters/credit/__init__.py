"""Private-credit underwriting: the deal team's tools, pure domain logic and the sim backend.

`CREDIT_TOOLS` are the tools the agent sees; the package models live in `models`, what the
analyst writes (figures, recommendations, requests, escalations) in `records`; `apply` runs a tool's
pure logic over a `World` and `SimBackend` wraps it for training environments.
"""

from adapters.credit.errors import DomainError
from adapters.credit.logic import TOOL_LOGIC, apply
from adapters.credit.sim import SimBackend
from adapters.credit.tools import CREDIT_TOOLS, CREDIT_TOOLS_BY_NAME
from adapters.credit.world import World

__all__ = [
    "CREDIT_TOOLS",
    "CREDIT_TOOLS_BY_NAME",
    "TOOL_LOGIC",
    "DomainError",
    "SimBackend",
    "World",
    "apply",
]
