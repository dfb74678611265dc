"""`SimBackend`: the pure credit logic over an in-memory world, for training environments.

A step swaps one immutable `World` for its successor, so `checkpoint()`/`rollback()` are O(1);
`snapshot()`/`restore()` go through JSON for anything that leaves the process.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from adapters.backend import ToolFailure
from adapters.credit.errors import DomainError
from adapters.credit.logic import TOOL_LOGIC
from adapters.credit.world import World
from schemas.tools import ToolError


class SimBackend:
    """Runs the credit tools against an in-memory `World`."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.steps = 0

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        logic = TOOL_LOGIC.get(tool)
        if logic is None:
            raise ToolFailure(ToolError(kind="unknown_tool", message=f"no credit tool {tool!r}"))
        try:
            result, self.world = logic(self.world, args)
        except DomainError as refusal:
            raise refusal.to_failure() from None
        finally:
            self.steps += 1
        return result

    def snapshot(self) -> dict[str, Any]:
        return self.world.snapshot()

    def restore(self, state: dict[str, Any]) -> None:
        self.world = World.from_snapshot(state)

    @classmethod
    def from_doc(cls, state: dict[str, Any]) -> SimBackend:
        """A backend over the world in a JSON snapshot."""
        return cls(World.from_snapshot(state))

    def checkpoint(self) -> World:
        """The current world, cheaply (worlds are immutable)."""
        return self.world

    def rollback(self, world: World) -> None:
        self.world = world
