"""How an rcm episode becomes a task draft (`adapters.drafting.draft.build_draft`): the world rebuilt
from the live system's recorded answers (`reconstruct.py`), the rcm sim to replay it on, and the
work item's claim rebuilt from that world when capture tokenised its payload. Pure."""

from __future__ import annotations

from collections.abc import Callable

from adapters.drafting.rebuild import DomainRebuild
from adapters.rcm.reconstruct import reconstruct_world
from adapters.rcm.sim import SimBackend
from adapters.rcm.tools import RCM_TOOLS
from adapters.rcm.world import World
from schemas.tasks import WorkItem


def rcm_rebuild(
    rebuild_work_item: Callable[[World, WorkItem], WorkItem] | None = None,
) -> DomainRebuild[World]:
    """The rcm side of `adapters.drafting.draft.Rebuild`; `rebuild_work_item` rebuilds a tokenised
    payload (the environment's work item for a claim)."""
    return DomainRebuild(
        "rcm", RCM_TOOLS, reconstruct_world, World.from_snapshot, SimBackend, rebuild_work_item
    )
