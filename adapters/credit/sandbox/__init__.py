"""The credit sandbox: a FastAPI stand-in for the fund's deal system, for demos and tests."""

from adapters.credit.sandbox.app import create_app
from adapters.credit.sandbox.config import FaultConfig, FaultRule, SandboxConfig
from adapters.credit.sandbox.seed import SEED_PACKAGES, seed_world
from adapters.credit.sandbox.server import SandboxAdmin, serve_in_thread

__all__ = [
    "SEED_PACKAGES",
    "FaultConfig",
    "FaultRule",
    "SandboxAdmin",
    "SandboxConfig",
    "create_app",
    "seed_world",
    "serve_in_thread",
]
