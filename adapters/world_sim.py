"""`WorldSim`: a domain's pure tool logic over an in-memory world, for training environments.

A step swaps one immutable world for its successor, so `checkpoint()`/`rollback()` are O(1);
`snapshot()`/`restore()` go through JSON for anything that leaves the process. Each domain's
`SimBackend` is this class over its world, its logic table and its refusal type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from adapters.backend import ToolFailure
from adapters.refusal import DomainRefusal
from schemas.tools import ToolError


class Snapshottable(Protocol):
    """A world that can be written out as JSON-ready data."""

    def snapshot(self) -> dict[str, Any]: ...


W = TypeVar("W", bound=Snapshottable)


class WorldSim(Generic[W]):
    """Runs one domain's tools against an in-memory world."""

    def __init__(
        self,
        world: W,
        *,
        logic: Mapping[str, Callable[[W, Any], tuple[BaseModel, W]]],
        from_snapshot: Callable[[dict[str, Any]], W],
        domain_label: str,
    ) -> None:
        self.world = world
        self.steps = 0
        self._logic = logic
        self._from_snapshot = from_snapshot
        self._label = domain_label

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        logic = self._logic.get(tool)
        if logic is None:
            raise ToolFailure(ToolError(kind="unknown_tool", message=f"no {self._label} tool {tool!r}"))
        try:
            result, self.world = logic(self.world, args)
        except DomainRefusal as refusal:
            raise refusal.to_failure() from None
        finally:
            self.steps += 1
        return result

    def snapshot(self) -> dict[str, Any]:
        return self.world.snapshot()

    def restore(self, state: dict[str, Any]) -> None:
        self.world = self._from_snapshot(state)

    def checkpoint(self) -> W:
        """The current world, cheaply (worlds are immutable)."""
        return self.world

    def rollback(self, world: W) -> None:
        self.world = world
