"""Deterministic fault injection: the domain-neutral injector (`adapters.faults`) the RCM sandbox uses."""

from adapters.faults import Fault, FaultInjector

__all__ = ["Fault", "FaultInjector"]
