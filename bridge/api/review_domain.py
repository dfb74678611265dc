"""What the review page knows of one domain, handed in by the composition root (the bridge names
no domain): the write tools the decision form offers to forbid, the hand-off tool, and the code
tables that put a remittance's codes into words."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.domain import ToolDomain
from schemas.tools import SideEffect

_FIRST_SENTENCE = re.compile(r"\.\s+(?=[A-Z])")


@dataclass(frozen=True)
class Codes:
    """Code → description tables; a code missing from them is shown without a description."""

    carc: Mapping[str, str] = field(default_factory=dict)
    """Claim adjustment reason codes."""
    rarc: Mapping[str, str] = field(default_factory=dict)
    """Remittance advice remark codes."""
    groups: Mapping[str, str] = field(default_factory=dict)
    """Adjustment group codes (CO, PR, ...)."""
    claim_status: Mapping[str, str] = field(default_factory=dict)
    """Claim status codes of a remittance."""


@dataclass(frozen=True)
class ReviewDomain:
    """One domain as the review page needs it."""

    writes: tuple[tuple[str, str], ...] = ()
    """Each tool that changes the world, with the first sentence of its description."""
    escalate_tool: str = ""
    """The tool that hands a case to a person."""
    codes: Codes = field(default_factory=Codes)
    """The domain's code tables."""
    escalations: str = ""
    """The world collection hand-offs are recorded in (an outcome check there with `max_count`
    0 rules a hand-off out)."""

    @classmethod
    def of(cls, tools: ToolDomain, codes: Codes | None = None, escalations: str = "") -> ReviewDomain:
        """From a domain's tools and rules, with its code tables and its hand-offs' collection."""
        writes = tuple(
            (spec.name, _FIRST_SENTENCE.split(spec.description, maxsplit=1)[0].rstrip("."))
            for spec in tools.tools
            if spec.side_effect is not SideEffect.READ
        )
        return cls(writes, tools.rules.escalate_tool, codes or Codes(), escalations)

    @property
    def write_tools(self) -> list[str]:
        """The write tools' names, in the domain's order."""
        return [name for name, _ in self.writes]
