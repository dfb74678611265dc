"""`SimBackend`: the pure credit logic over an in-memory `World` (`adapters.world_sim.WorldSim`)."""

from __future__ import annotations

from typing import Any

from adapters.credit.logic import TOOL_LOGIC
from adapters.credit.world import World
from adapters.world_sim import WorldSim


class SimBackend(WorldSim[World]):
    """Runs the credit tools against an in-memory `World`."""

    def __init__(self, world: World) -> None:
        super().__init__(world, logic=TOOL_LOGIC, from_snapshot=World.from_snapshot, domain_label="credit")

    @classmethod
    def from_doc(cls, state: dict[str, Any]) -> SimBackend:
        """A backend over the world in a JSON snapshot."""
        return cls(World.from_snapshot(state))
