"""`DomainRebuild`: a domain's side of `adapters.drafting.draft.Rebuild` from its parts (how the
recorded answers rebuild its world, and its sim). Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from adapters.backend import ToolBackend
from adapters.drafting.recording import RecordedEpisode
from adapters.spec import ToolSpec
from adapters.surrogates import Surrogates
from schemas.tasks import WorkItem


class Snapshotted(Protocol):
    def snapshot(self) -> dict[str, Any]: ...


W = TypeVar("W", bound=Snapshotted)


@dataclass(frozen=True)
class DomainRebuild(Generic[W]):
    """How one domain's drafts are rebuilt and replayed."""

    domain: str
    specs: Sequence[ToolSpec[Any, Any]]
    reconstruct: Callable[[RecordedEpisode, Surrogates], W]
    """The world the recorded answers imply (raises `RecordingError` if none does)."""
    from_snapshot: Callable[[dict[str, Any]], W]
    sim: Callable[[W], ToolBackend]
    rebuild_work_item: Callable[[W, WorkItem], WorkItem] | None = None
    """How a tokenised payload is rebuilt from the world (the environment's work item); None keeps it."""

    def world(self, episode: RecordedEpisode, surrogates: Surrogates) -> dict[str, Any]:
        return self.reconstruct(episode, surrogates).snapshot()

    def backend(self, world: dict[str, Any]) -> ToolBackend:
        return self.sim(self.from_snapshot(world))

    def work_item(self, world: dict[str, Any], item: WorkItem) -> WorkItem:
        if self.rebuild_work_item is None:
            return item
        return self.rebuild_work_item(self.from_snapshot(world), item)
