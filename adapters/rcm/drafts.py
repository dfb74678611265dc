"""Task drafts from production episodes: record, reconstruct, replay, and refuse what is not faithful.

`build_draft(events, ...)` turns one archived rcm episode into a `TaskDraft`: the work item as the
agent saw it, a world snapshot rebuilt from the live system's recorded answers, those answers
themselves, the live faults to replay, and the draft's fidelity (the share of the episode's own
calls the rebuilt sim answers exactly, with every mismatch). PHI never enters a draft: every PHI
field holds a consistent synthetic surrogate, and no capture token survives anywhere. A draft
below `threshold` is built all the same (so an operator can see why) but marked refused. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import Field

from adapters.rcm.reconstruct import reconstruct_world
from adapters.rcm.recording import RecordedCall, RecordingError, recorded_episode, with_surrogates
from adapters.rcm.replay import Fidelity, LiveFault, live_faults, replay
from adapters.surrogates import TOKEN, Surrogates
from adapters.rcm.world import World
from schemas.base import Contract
from schemas.envelope import Event
from schemas.tasks import WorkItem, content_hash

DEFAULT_THRESHOLD = 0.9
WorkItemRebuild = Callable[[World, WorkItem], WorkItem]
"""Rebuilds a work item's payload from the world (for payloads capture tokenised wholesale)."""


class TaskDraft(Contract):
    """A candidate task reconstructed from one production episode (PHI replaced by surrogates)."""

    draft_id: str
    """Stable id: the edge case's fingerprint and the episode it was seen in decide it."""
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
    *,
    fingerprint: str,
    rule: str,
    threshold: float = DEFAULT_THRESHOLD,
    surrogates: Surrogates | None = None,
    rebuild_work_item: WorkItemRebuild | None = None,
) -> TaskDraft:
    """The draft for the episode `events` record (raises `RecordingError` if they are not one).

    Capture tokenises a payload that comes without a model leaf by leaf; the agent saw the clear
    values, so such a payload is rebuilt from the reconstructed world with `rebuild_work_item`."""
    surrogates = surrogates or Surrogates()
    raw = recorded_episode(events)
    episode = with_surrogates(raw, surrogates)
    world = reconstruct_world(episode, surrogates)
    if rebuild_work_item is not None and TOKEN.search(raw.work_item.model_dump_json()):
        episode = episode.model_copy(update={"work_item": rebuild_work_item(world, episode.work_item)})
    fidelity, faults = replay(world, episode, live_faults(episode))
    refusal = None
    if fidelity.share < threshold:
        refusal = (
            f"fidelity {fidelity.share:.2f} is below the threshold {threshold:.2f}: "
            f"{len(fidelity.mismatches)} of {fidelity.calls} calls not reproduced"
        )
    body = {
        "work_item": episode.work_item.model_dump(mode="json"),
        "world": world.snapshot(),
        "recorded": [c.model_dump(mode="json") for c in episode.calls],
        "faults": [f.model_dump(mode="json") for f in faults],
    }
    draft = TaskDraft(
        draft_id=draft_id_for(fingerprint, episode.episode_id),
        fingerprint=fingerprint,
        rule=rule,
        source_episode_id=episode.episode_id,
        work_item=episode.work_item,
        world=body["world"],
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
