"""How a domain's edge cases become tasks: each domain's descriptor holds a `Promotion`, looked up
(`envs.domain.promotion`) by the domain name an archived episode's work item carries
(`TaskDraft.domain`), so the promotion workflow, its activities and the review desk name no domain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from adapters.drafting.draft import DEFAULT_THRESHOLD, Rebuild, TaskDraft, build_draft
from schemas.envelope import Event
from schemas.tasks import Provenance, Task, VerifierSpec, content_hash
from schemas.tools import ToolCall


class Promotion(Protocol):
    """What promotion needs from one domain."""

    @property
    def name(self) -> str:
        """The domain, as in `WorkItem.domain`."""
        ...

    @property
    def rebuild(self) -> Rebuild:
        """How its drafts are rebuilt (the world, the sim, the work item)."""
        ...

    def build_draft(
        self, events: Iterable[Event], *, fingerprint: str, rule: str, threshold: float
    ) -> TaskDraft:
        """The draft of the episode `events` record (raises `RecordingError` or `ValueError` when
        they cannot make one)."""
        ...

    def candidate_task(
        self,
        draft: TaskDraft,
        spec: VerifierSpec,
        gold: tuple[ToolCall, ...] = (),
        *,
        reviewer: str | None = None,
    ) -> Task:
        """The task `draft` becomes under `spec`, with `gold` as its gold solution."""
        ...

    def suggested_spec(self, draft: TaskDraft) -> tuple[VerifierSpec, tuple[ToolCall, ...]]:
        """The reference agent works the draft: its resolution written as a spec, and its calls."""
        ...


@dataclass(frozen=True)
class DomainPromotion:
    """A `Promotion` from a domain's parts."""

    name: str
    rebuild: Rebuild
    """How the domain's drafts are rebuilt from an episode's recorded answers."""
    tools: Sequence[str]
    """The tools a promoted task offers."""
    suggest: Callable[[TaskDraft], tuple[VerifierSpec, tuple[ToolCall, ...]]]
    """The reference agent's resolution of a draft as a spec, and its calls."""
    task_world: Callable[[TaskDraft], dict[str, Any]] = lambda draft: dict(draft.world)
    """The world a draft's task starts from (the rcm domain adds the draft's live faults)."""

    def build_draft(
        self, events: Iterable[Event], *, fingerprint: str, rule: str, threshold: float = DEFAULT_THRESHOLD
    ) -> TaskDraft:
        """The draft of the episode (its work item rebuilt when capture tokenised it)."""
        return build_draft(events, self.rebuild, fingerprint=fingerprint, rule=rule, threshold=threshold)

    def candidate_task(
        self,
        draft: TaskDraft,
        spec: VerifierSpec,
        gold: tuple[ToolCall, ...] = (),
        *,
        reviewer: str | None = None,
    ) -> Task:
        """The task a draft becomes under `spec`, with `gold` as its gold solution."""
        world = self.task_world(draft)
        return promoted_task(draft, world=world, tools=self.tools, spec=spec, gold=gold, reviewer=reviewer)

    def suggested_spec(self, draft: TaskDraft) -> tuple[VerifierSpec, tuple[ToolCall, ...]]:
        return self.suggest(draft)


def task_id_for(draft: TaskDraft) -> str:
    """One task per edge case: the id comes from the fingerprint."""
    return f"promoted-{draft.fingerprint[:20]}"


def promoted_task(
    draft: TaskDraft,
    *,
    world: dict[str, Any],
    tools: Sequence[str],
    spec: VerifierSpec,
    gold: tuple[ToolCall, ...],
    reviewer: str | None,
) -> Task:
    """The task of `draft` over `world`, with the provenance and tags every promoted task carries:
    its rule, fingerprint, draft and spec, and the resolution the spec names."""
    return Task(
        task_id=task_id_for(draft),
        domain=draft.domain,
        work_item=draft.work_item,
        initial_world=world,
        tools=tuple(tools),
        gold_solution=gold,
        verifier=spec,
        provenance=Provenance(kind="promoted", episode_id=draft.source_episode_id, reviewer=reviewer),
        tags=(
            "dist:promoted",
            f"rule:{draft.rule}",
            f"fingerprint:{draft.fingerprint}",
            f"draft:{draft.content_hash[:20]}",
            f"spec:{content_hash(spec.model_dump(mode='json'))[:20]}",
            *(f"resolution:{spec.params['resolution']}" for _ in [0] if "resolution" in spec.params),
        ),
    )
