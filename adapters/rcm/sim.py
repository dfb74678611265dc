"""`SimBackend`: the pure RCM logic over an in-memory `World` (`adapters.world_sim.WorldSim`)."""

from __future__ import annotations

from adapters.rcm.logic import TOOL_LOGIC
from adapters.rcm.world import World
from adapters.world_sim import WorldSim


class SimBackend(WorldSim[World]):
    """Runs RCM tools against an in-memory `World`."""

    def __init__(self, world: World) -> None:
        super().__init__(world, logic=TOOL_LOGIC, from_snapshot=World.from_snapshot, domain_label="RCM")
