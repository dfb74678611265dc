"""How a domain plugs into the environments: its tools, a simulated backend, terminal tools.

Domains register themselves when their package is imported (`envs/toy.py`, `envs/rcm/`). The
registry knows which module holds each built-in domain and imports it on first use, so a worker
process that only has a task's `domain` name (or a verifier name like `rcm.v1`) finds it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from adapters.backend import SnapshottingBackend
from adapters.spec import ToolSpec


class Domain(Protocol):
    """Everything the generic environment needs to know about one business domain."""

    @property
    def name(self) -> str:
        """Domain name, as in `Task.domain`."""
        ...

    @property
    def terminal_tools(self) -> frozenset[str]:
        """Tools whose successful call ends the episode (e.g. escalation to a human)."""
        ...

    @property
    def escalation_tools(self) -> frozenset[str]:
        """Tools that hand the work item to a human."""
        ...

    def tool_specs(self) -> Sequence[ToolSpec[Any, Any]]:
        """Every tool the domain offers; a task narrows them with `Task.tools`."""
        ...

    def make_backend(self, world: Mapping[str, Any], *, seed: int) -> SnapshottingBackend:
        """A fresh simulated backend over a copy of `world`; all randomness comes from `seed`."""
        ...

    def outcome_view(self, world: Mapping[str, Any]) -> dict[str, Any]:
        """The business outcome of a world, the part outcome checks compare.

        Leaves out what may rightly differ between two correct episodes (free-text notes, the
        order of attachments) so `outcome_paths` address only facts that matter.
        """
        ...

    def outcome_facts(
        self, initial: Mapping[str, Any], final: Mapping[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        """The final world as collections of flat records that outcome specs assert over; each
        record says (`new`) whether the episode created it."""
        ...


class UnknownDomain(KeyError):
    """No domain of that name is registered or built in."""


BUILTIN_DOMAINS: dict[str, str] = {"toy": "envs.toy", "rcm": "envs.rcm", "credit": "envs.credit"}
"""Domain name → module that registers it on import."""


class DomainRegistry:
    """Domains by name, importing built-in ones on demand."""

    def __init__(self, builtins: Mapping[str, str] = BUILTIN_DOMAINS) -> None:
        self._builtins = dict(builtins)
        self._domains: dict[str, Domain] = {}
        self._lock = threading.Lock()

    def register(self, domain: Domain) -> Domain:
        """Add a domain; registering the same name twice replaces it only with the same object."""
        with self._lock:
            known = self._domains.get(domain.name)
            if known is not None and known is not domain:
                raise ValueError(f"domain {domain.name!r} is already registered")
            self._domains[domain.name] = domain
        return domain

    def get(self, name: str) -> Domain:
        """The domain called `name`, importing its module if it is a built-in."""
        if name not in self._domains and name in self._builtins:
            importlib.import_module(self._builtins[name])
        try:
            return self._domains[name]
        except KeyError:
            known = ", ".join(sorted({*self._domains, *self._builtins})) or "(none)"
            raise UnknownDomain(f"no domain {name!r}; known: {known}") from None

    def names(self) -> list[str]:
        """Registered and built-in domain names."""
        return sorted({*self._domains, *self._builtins})


DOMAINS = DomainRegistry()
"""The process-wide domain registry."""
