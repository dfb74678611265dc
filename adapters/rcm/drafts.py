"""How an rcm episode becomes a task draft (`adapters.drafting.draft.build_draft`): the world rebuilt
from the live system's recorded answers (`reconstruct.py`), the rcm sim to replay it on, and the
work item's claim rebuilt from that world when capture tokenised its payload. Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.backend import ToolBackend
from adapters.drafting.recording import RecordedEpisode
from adapters.rcm.reconstruct import reconstruct_world
from adapters.rcm.sim import SimBackend
from adapters.rcm.tools import RCM_TOOLS
from adapters.rcm.world import World
from adapters.spec import ToolSpec
from adapters.surrogates import Surrogates
from schemas.tasks import WorkItem

WorkItemRebuild = Callable[[World, WorkItem], WorkItem]
"""Rebuilds a work item's payload from the world (for payloads capture tokenises wholesale)."""


@dataclass(frozen=True)
class RcmRebuild:
    """The rcm side of `adapters.drafting.draft.Rebuild`."""

    rebuild_work_item: WorkItemRebuild | None = None
    """How a tokenised payload is rebuilt (the environment's work item for a claim); None keeps it."""
    domain: str = "rcm"
    specs: Sequence[ToolSpec[Any, Any]] = tuple(RCM_TOOLS)

    def world(self, episode: RecordedEpisode, surrogates: Surrogates) -> dict[str, Any]:
        """The rcm world the answers imply."""
        return reconstruct_world(episode, surrogates).snapshot()

    def backend(self, world: dict[str, Any]) -> ToolBackend:
        """The rcm sim over `world`."""
        return SimBackend(World.from_snapshot(world))

    def work_item(self, world: dict[str, Any], item: WorkItem) -> WorkItem:
        """`item` rebuilt from `world`, when a rebuild is given."""
        if self.rebuild_work_item is None:
            return item
        return self.rebuild_work_item(World.from_snapshot(world), item)
