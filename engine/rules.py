"""What a domain tells the engine about its episodes: which tool hands the work to a human, which
tools end the episode, how to read an escalation out of the domain's escalate call, and whether an
escalate call hands off the whole work item or one part of it (one claim of a queue: the work on
the others goes on).

The engine never parses domain argument names itself; each domain supplies its `EpisodeRules`
(usually a `DomainRules` built from its tool definitions).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from schemas import WorkItem


@dataclass(frozen=True)
class EscalationFields:
    """An escalation as the domain's escalate call states it."""

    reason: str
    recommendation: str | None = None
    queue: str | None = None


class EpisodeRules(Protocol):
    """A domain's rules of engagement for one episode."""

    @property
    def escalate_tool(self) -> str:
        """The tool that hands the work item to a human."""
        ...

    @property
    def terminal_tools(self) -> frozenset[str]:
        """Tools whose successful call ends the episode (the escalate tool need not be listed)."""
        ...

    def escalation(self, arguments: Mapping[str, Any]) -> EscalationFields:
        """The reason, recommendation and queue of a successful escalate call."""
        ...

    def escalation_ends(self, work_item: WorkItem, arguments: Mapping[str, Any]) -> bool:
        """Whether a successful escalate call hands the whole work item to a human (and so ends the
        episode); False when it hands off one part of it and the work on the rest goes on."""
        ...


@dataclass(frozen=True)
class DomainRules:
    """`EpisodeRules` from plain values and a reader of the escalate call's arguments."""

    escalate_tool: str
    read_escalation: Callable[[Mapping[str, Any]], EscalationFields]
    terminal_tools: frozenset[str] = frozenset()
    hands_off_part: Callable[[WorkItem, Mapping[str, Any]], bool] | None = None
    """Whether an escalate call names one part of the work item (None: every escalation hands
    off the whole item)."""

    def __post_init__(self) -> None:
        if self.escalate_tool in self.terminal_tools:
            raise ValueError(f"{self.escalate_tool!r} cannot be both the escalate tool and a terminal tool")

    def escalation(self, arguments: Mapping[str, Any]) -> EscalationFields:
        return self.read_escalation(arguments)

    def escalation_ends(self, work_item: WorkItem, arguments: Mapping[str, Any]) -> bool:
        return self.hands_off_part is None or not self.hands_off_part(work_item, arguments)
