"""The domains a bridge process can serve, and what each brings: its tools, its live backend, the
world model its snapshots are redacted by, its work-item check and its terminal tools.

The composition root is the one place that names domains; the bridge itself works any of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from adapters.spec import ToolSpec
from schemas.tasks import WorkItem

DomainName = Literal["rcm", "credit"]


class LiveClient(Protocol):
    """What the bridge needs of a live backend: tool calls, and closing its connections."""

    def invoke(self, tool: str, args: BaseModel) -> BaseModel: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class BridgeDomain:
    """One domain, as a bridge process serves it."""

    name: DomainName
    tools: Sequence[ToolSpec[Any, Any]]
    live: Callable[[str, float], LiveClient]
    """(base URL, timeout) → the domain's `LiveBackend`."""
    world_model: type[BaseModel]
    """The world snapshots are redacted by (PHI marked in its fields)."""
    work_item_problem: Callable[[WorkItem], str | None]
    escalate_tool: str
    """The domain's hand-off tool; the runtime records its calls as escalations."""
    terminal_tools: frozenset[str] = frozenset()
    """Tools whose successful call ends the episode (a recorded decision)."""


def bridge_domain(name: DomainName) -> BridgeDomain:
    """The named domain, imported on demand (a bridge loads only the domain it serves)."""
    if name == "credit":
        from adapters.credit import CREDIT_TOOLS
        from adapters.credit.live import LiveBackend as CreditLive
        from adapters.credit.tools import ESCALATE, RECORD
        from adapters.credit.work_items import work_item_problem as credit_problem
        from adapters.credit.world import World as CreditWorld

        return BridgeDomain(
            "credit", CREDIT_TOOLS, lambda url, timeout: CreditLive(url, timeout_s=timeout), CreditWorld,
            credit_problem, escalate_tool=ESCALATE, terminal_tools=frozenset({RECORD}),
        )  # fmt: skip
    from adapters.rcm import RCM_TOOLS, World
    from adapters.rcm.live import LiveBackend
    from adapters.rcm.work_items import work_item_problem

    # `escalate_to_human` is the rcm domain's only terminal tool, as in envs.rcm.
    return BridgeDomain(
        "rcm", RCM_TOOLS, lambda url, timeout: LiveBackend(url, timeout_s=timeout), World, work_item_problem,
        escalate_tool="escalate_to_human",
    )  # fmt: skip
