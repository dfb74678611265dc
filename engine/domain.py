"""A domain as the engine and the bridge see it: its tools, its live backend, the world model its
snapshots are redacted by, its work-item check and its episode rules.

Each domain's descriptor (`envs.domain.Domain`) holds one; the composition root hands it to the
bridge, which never imports a domain.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pkgutil import resolve_name
from typing import Any, Protocol

from pydantic import BaseModel

from adapters.spec import ToolSpec
from engine.rules import DomainRules
from schemas.tasks import WorkItem


class LiveClient(Protocol):
    """What a live backend offers: tool calls, and closing its connections."""

    def invoke(self, tool: str, args: BaseModel) -> BaseModel: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class ToolDomain:
    """One domain's tools and what serving them live needs."""

    name: str
    """Domain name, as in `WorkItem.domain` and `Task.domain`."""
    tools: Sequence[ToolSpec[Any, Any]]
    rules: DomainRules
    """The escalate tool, the terminal tools and how to read an escalation."""
    live: Callable[[str, float], LiveClient]
    """(base URL, timeout in seconds) → the domain's live backend."""
    world_model: type[BaseModel]
    """The world snapshots are redacted by (PHI marked in its fields)."""
    work_item_problem: Callable[[WorkItem], str | None] = lambda item: None
    """Why a work item cannot be worked (None when it can)."""


def lazy_live(path: str) -> Callable[[str, float], LiveClient]:
    """A factory of the live backend class at `module:Class`, imported on first use (httpx loads
    only for a live bridge)."""

    def make(base_url: str, timeout_s: float) -> LiveClient:
        backend: LiveClient = resolve_name(path)(base_url, timeout_s=timeout_s)
        return backend

    return make
