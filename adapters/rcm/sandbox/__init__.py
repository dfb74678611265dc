"""The RCM sandbox: a FastAPI stand-in for the payer / clearinghouse / practice-management system."""

from adapters.rcm.sandbox.app import create_app
from adapters.rcm.sandbox.config import FaultConfig, FaultRule, SandboxConfig
from adapters.rcm.sandbox.server import SandboxAdmin, serve_in_thread

__all__ = ["FaultConfig", "FaultRule", "SandboxAdmin", "SandboxConfig", "create_app", "serve_in_thread"]
