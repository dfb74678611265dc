"""The sandbox live system every domain serves: one FastAPI app factory with the tool routes (from
the domain's `ToolRoutes`), fault injection and the admin routes, configured per domain by a
`SandboxDomain` (its logic, world model and store)."""

from adapters.sandbox.admin import SandboxAdmin
from adapters.sandbox.app import SandboxDomain, SandboxState, create_sandbox_app
from adapters.sandbox.config import SandboxBase

__all__ = ["SandboxAdmin", "SandboxBase", "SandboxDomain", "SandboxState", "create_sandbox_app"]
