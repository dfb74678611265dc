"""Task drafts from production episodes: record, reconstruct, replay, and refuse what is not faithful.

`build_draft(events, rebuild, ...)` turns one archived episode into a `TaskDraft`: the work item as
the agent saw it, a world snapshot rebuilt from the live system's recorded answers (by the domain's
`Rebuild`), those answers themselves, the live faults to replay, and the draft's fidelity (the share
of the episode's own calls the rebuilt sim answers exactly, with every mismatch). PHI never enters a
draft: every PHI field holds a consistent synthetic surrogate, and no capture token survives
anywhere. A draft below `threshold` is built all the same (so an operator can see why) but marked
refused. Pure and domain-neutral.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from pydantic import Field

from adapters.backend import ToolBackend
from adapters.drafting.recording import (
    RecordedCall,
    RecordedEpisode,
    RecordingError,
    recorded_episode,
    with_surrogates,
)
from adapters.drafting.replay import Fidelity, LiveFault, live_faults, replay
from adapters.spec import ToolSpec
from adapters.surrogates import TOKEN, Surrogates
from schemas.base import Contract
from schemas.envelope import Event
from schemas.tasks import WorkItem, content_hash

DEFAULT_THRESHOLD = 0.9


class Rebuild(Protocol):
    """How one domain rebuilds the world an episode ran against and replays it."""

    @property
    def domain(self) -> str:
        """The domain, as in `WorkItem.domain`."""
        ...

    @property
    def specs(self) -> Sequence[ToolSpec[Any, Any]]:
        """The domain's tools (PHI marks, replay)."""
        ...

    def world(self, episode: RecordedEpisode, surrogates: Surrogates) -> dict[str, Any]:
        """The world snapshot the recorded answers imply (raises `RecordingError` if none does)."""
        ...

    def backend(self, world: dict[str, Any]) -> ToolBackend:
        """A fresh simulated backend over a copy of `world`."""
        ...

    def work_item(self, world: dict[str, Any], item: WorkItem) -> WorkItem:
        """`item`'s payload rebuilt from `world` (for payloads capture tokenised wholesale)."""
        ...


class TaskDraft(Contract):
    """A candidate task reconstructed from one production episode (PHI replaced by surrogates)."""

    draft_id: str
    """Stable id: the edge case's fingerprint and the episode it was seen in decide it."""
    domain: str = Field(min_length=1)
    """The domain of the episode's work item (it decides how the draft becomes a task)."""
    fingerprint: str
    """The edge case that asked for the draft."""
    rule: str
    """The detector rule that found it."""
    source_episode_id: str
    """The production episode the draft replays."""
    work_item: WorkItem
    """The work item as the agent saw it."""
    world: dict[str, Any]
    """The world snapshot rebuilt from the recorded answers (surrogates for PHI)."""
    recorded: tuple[RecordedCall, ...]
    """The episode's calls and the live system's answers (surrogates for PHI)."""
    faults: tuple[LiveFault, ...] = ()
    """Live-system failures replayed at their calls."""
    fidelity: Fidelity
    """How much of the episode the rebuilt sim reproduces."""
    threshold: float = Field(ge=0.0, le=1.0)
    """The fidelity a draft needs to be accepted."""
    refusal: str | None = None
    """Why the draft is refused (below the threshold); None when accepted."""
    content_hash: str = ""
    """Hash over the work item, world, recorded calls and faults."""

    @property
    def accepted(self) -> bool:
        """Faithful enough to become a task."""
        return self.refusal is None


def draft_id_for(fingerprint: str, episode_id: str) -> str:
    """The draft's id: one per (edge case, episode)."""
    return "draft-" + content_hash([fingerprint, episode_id])[:20]


def build_draft(
    events: Iterable[Event],
    rebuild: Rebuild,
    *,
    fingerprint: str,
    rule: str,
    threshold: float = DEFAULT_THRESHOLD,
    surrogates: Surrogates | None = None,
) -> TaskDraft:
    """The draft for the episode `events` record (raises `RecordingError` if they are not one).

    Capture tokenises a payload that comes without a model leaf by leaf; the agent saw the clear
    values, so such a payload is rebuilt from the reconstructed world."""
    surrogates = surrogates or Surrogates()
    raw = recorded_episode(events, rebuild.domain)
    specs = {spec.name: spec for spec in rebuild.specs}
    episode: RecordedEpisode = with_surrogates(raw, surrogates, specs)
    world = rebuild.world(episode, surrogates)
    if TOKEN.search(raw.work_item.model_dump_json()):
        episode = episode.model_copy(update={"work_item": rebuild.work_item(world, episode.work_item)})
    fidelity, faults = replay(lambda: rebuild.backend(world), rebuild.specs, episode, live_faults(episode))
    refusal = None
    if fidelity.share < threshold:
        refusal = (
            f"fidelity {fidelity.share:.2f} is below the threshold {threshold:.2f}: "
            f"{len(fidelity.mismatches)} of {fidelity.calls} calls not reproduced"
        )
    body = {
        "work_item": episode.work_item.model_dump(mode="json"),
        "world": world,
        "recorded": [c.model_dump(mode="json") for c in episode.calls],
        "faults": [f.model_dump(mode="json") for f in faults],
    }
    draft = TaskDraft(
        draft_id=draft_id_for(fingerprint, episode.episode_id),
        domain=rebuild.domain,
        fingerprint=fingerprint,
        rule=rule,
        source_episode_id=episode.episode_id,
        work_item=episode.work_item,
        world=world,
        recorded=episode.calls,
        faults=tuple(faults),
        fidelity=fidelity,
        threshold=threshold,
        refusal=refusal,
        content_hash=content_hash(body),
    )
    leaked = TOKEN.search(draft.model_dump_json())
    if leaked:  # a token in a draft is a bug in the surrogates, never something to ship
        raise RecordingError("a capture token survived into the draft; refusing to build it")
    return draft
