"""The promotion workflow's activities: all its I/O, each idempotent (Temporal may run one twice).

Each takes one `…Input` and returns one `…Result` (`workflows.promotion.models`). They are plain
synchronous methods of `PromotionActivities`, which holds what they need (the draft store, the
archive's events, the task-set registry, the event publisher); the worker runs them in a thread
pool. Reruns find their own earlier work: a draft is stored once under its id, specs and reports
under their hashes, the task set is published under a lock after checking whether the task is
already in it, and the `task.promoted` event is sealed once, stored, then published (at least once;
consumers deduplicate on its id).
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from adapters.drafting.draft import DEFAULT_THRESHOLD, TaskDraft, draft_id_for
from adapters.drafting.recording import RecordingError, episode_domain
from adapters.drafting.store import DraftStore, Notification, PromotionStatus, Suggestion
from envs.domain import UnknownPromotion, promotion
from envs.tasksets import TaskSetError, TaskSetRegistry
from envs.validate import validate_task
from schemas.chain import EpisodeChain
from schemas.codec import to_structured
from schemas.envelope import Event
from schemas.events import TaskPromoted
from schemas.tasks import Task
from workflows.promotion.candidate import candidate_task, gates, suggested_spec
from workflows.promotion.models import (
    BuildDraftInput,
    BuildDraftResult,
    FindDuplicateInput,
    FindDuplicateResult,
    NotifyReviewersInput,
    NotifyReviewersResult,
    PublishTaskInput,
    PublishTaskResult,
    RecordStageInput,
    RecordStageResult,
    SuggestSpecInput,
    SuggestSpecResult,
    ValidateCandidateInput,
    ValidateCandidateResult,
)

PROMOTED_SET = "{domain}-promoted"
"""The task set a draft's task joins; `{domain}` is the draft's domain (`rcm-promoted`)."""
EventSource = Callable[[str], list[Event]]
"""An episode's archived events, in `seq` order."""
Publisher = Callable[[dict[str, Any]], None]
"""Sends one structured event to the events topic (raises when it could not)."""


@dataclass
class PromotionActivities:
    """The activities, bound to their stores."""

    store: DraftStore
    episode_events: EventSource
    registry: TaskSetRegistry
    task_set: str = PROMOTED_SET
    threshold: float = DEFAULT_THRESHOLD
    publish: Publisher | None = None
    tenant: str = "default"
    source: str = "loopline://workflows/promotion"
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def _draft(self, draft_id: str) -> TaskDraft:
        draft = self.store.draft(draft_id)
        if draft is None:
            raise ApplicationError(
                f"no draft {draft_id} in the store", type="MissingDraft", non_retryable=True
            )
        return draft

    @activity.defn
    def build_task_draft(self, data: BuildDraftInput) -> BuildDraftResult:
        """The draft of the case's episode, built once and stored."""
        draft = self.store.draft(draft_id_for(data.fingerprint, data.episode_id))
        if draft is None:
            events = self.episode_events(data.episode_id)
            if not events:
                raise ApplicationError(
                    f"no archived events for episode {data.episode_id} yet", type="EpisodeNotArchived"
                )  # retried: the projector may not have caught up
            try:
                draft = promotion(episode_domain(events) or "").build_draft(
                    events, fingerprint=data.fingerprint, rule=data.rule, threshold=self.threshold
                )
            except (RecordingError, UnknownPromotion, ValueError) as exc:
                raise ApplicationError(
                    f"episode {data.episode_id} cannot be drafted: {type(exc).__name__}",
                    type="NotDraftable",
                    non_retryable=True,
                ) from None
            self.store.put_draft(draft)
        return BuildDraftResult(
            draft_id=draft.draft_id,
            content_hash=draft.content_hash,
            fidelity=draft.fidelity.share,
            accepted=draft.accepted,
        )

    @activity.defn
    def find_duplicate(self, data: FindDuplicateInput) -> FindDuplicateResult:
        """A task of the current task set that already covers the draft's case."""
        draft = self._draft(data.draft_id)
        marks = {f"fingerprint:{draft.fingerprint}", f"draft:{draft.content_hash[:20]}"}
        for task in self._current(self._set(draft)):
            if marks & set(task.tags):
                return FindDuplicateResult(duplicate_of=task.task_id)
        return FindDuplicateResult()

    @activity.defn
    def suggest_outcome_spec(self, data: SuggestSpecInput) -> SuggestSpecResult:
        """The reference specialist's resolution as a spec, with whether its gold meets it."""
        found = self.store.suggestion(data.draft_id)
        if found is None:
            draft = self._draft(data.draft_id)
            try:
                spec, gold = suggested_spec(draft)
            except ValueError as exc:  # the reference agent cannot work the draft: no retry helps
                raise ApplicationError(
                    f"draft {draft.draft_id}: no suggestion ({type(exc).__name__}: {exc})",
                    type="NotSuggestible",
                    non_retryable=True,
                ) from None
            validation = validate_task(candidate_task(draft, spec, gold))
            found = Suggestion(
                draft_id=draft.draft_id,
                spec_hash=self.store.put_spec(spec),
                gold=gold,
                resolution=str(spec.params.get("resolution", "")),
                solved=validation.ok,
                problems=validation.problems,
            )
            self.store.put_suggestion(found)
        return SuggestSpecResult(spec_hash=found.spec_hash, solved=found.solved)

    @activity.defn
    def record_stage(self, data: RecordStageInput) -> RecordStageResult:
        """Write the draft's status (replacing the last one)."""
        known = self.store.status(data.draft_id)
        self.store.put_status(
            PromotionStatus(
                **data.model_dump(),
                task_id=known.task_id if known else None,
                task_set=known.task_set if known else None,
                task_set_version=known.task_set_version if known else None,
                updated_at=self.clock(),
            )
        )
        return RecordStageResult(stage=data.stage)

    @activity.defn
    def notify_reviewers(self, data: NotifyReviewersInput) -> NotifyReviewersResult:
        """A reminder or an escalation, sent once per draft, kind and round."""
        sent = self.store.notifications(data.draft_id)
        if any((n.kind, n.round) == (data.kind, data.round) for n in sent):
            return NotifyReviewersResult(sent=False)
        self.store.notify(
            Notification(draft_id=data.draft_id, kind=data.kind, round=data.round, sent_at=self.clock())
        )
        activity.logger.info("review %s for draft %s (round %d)", data.kind, data.draft_id, data.round)
        return NotifyReviewersResult(sent=True)

    @activity.defn
    def validate_candidate(self, data: ValidateCandidateInput) -> ValidateCandidateResult:
        """The gates on the task the draft becomes under the approved spec."""
        task = self._task(data.draft_id, data.spec_hash, data.gold_hash, reviewer=None)
        report = gates(task).model_copy(update={"spec_hash": data.spec_hash})
        return ValidateCandidateResult(
            ok=report.ok, report_id=self.store.put_report(report), problems=len(report.problems)
        )

    @activity.defn
    def publish_task(self, data: PublishTaskInput) -> PublishTaskResult:
        """A new task-set version holding the task (unless one already does), then `task.promoted`."""
        task = self._task(data.draft_id, data.spec_hash, data.gold_hash, reviewer=data.reviewer)
        content_hash = task.compute_hash()
        draft = self._draft(data.draft_id)
        task_set = self._set(draft)
        with self._locked(task_set):
            twin = next(
                (
                    t
                    for t in self._current(task_set)
                    if t.task_id != task.task_id and f"draft:{draft.content_hash[:20]}" in t.tags
                ),
                None,
            )
            if twin is not None:  # the same episode, promoted meanwhile through another edge case
                return PublishTaskResult(
                    task_id=twin.task_id,
                    task_set=task_set,
                    version=self.registry.versions(task_set)[-1],
                    content_hash=twin.compute_hash(),
                    duplicate_of=twin.task_id,
                )
            version = self._version_holding(task_set, task.task_id, content_hash)
            if version is None:
                tasks = [t for t in self._current(task_set) if t.task_id != task.task_id]
                manifest = self.registry.publish(
                    task_set, [*tasks, task], notes=f"promoted {task.task_id} ({data.workflow_id})"
                )
                version = manifest.version
        event = self.store.put_event(
            task.task_id, self._seal(task, task_set, version, content_hash, draft, data.reviewer)
        )
        if self.publish is not None:
            self.publish(event)
        known = self.store.status(data.draft_id)
        if known is not None:
            self.store.put_status(
                known.model_copy(
                    update={
                        "stage": "published",
                        "task_id": task.task_id,
                        "task_set": task_set,
                        "task_set_version": version,
                        "updated_at": self.clock(),
                    }
                )
            )
        return PublishTaskResult(
            task_id=task.task_id,
            task_set=task_set,
            version=version,
            content_hash=content_hash,
            event_id=str(event["id"]),
        )

    # -- helpers -----------------------------------------------------------------------------
    def _task(self, draft_id: str, spec_hash: str, gold_hash: str | None, *, reviewer: str | None) -> Task:
        draft = self._draft(draft_id)
        spec = self.store.spec(spec_hash)
        suggestion = self.store.suggestion(draft_id)
        gold = self.store.gold(gold_hash) if gold_hash else None
        if spec is None or suggestion is None or (gold_hash and gold is None):
            raise ApplicationError(
                f"draft {draft_id} has no spec {spec_hash[:12]}, no suggestion or no gold {gold_hash or ''}",
                type="MissingSpec",
                non_retryable=True,
            )
        calls = gold.calls if gold is not None else suggestion.gold
        return candidate_task(draft, spec, calls, reviewer=reviewer)

    def _set(self, draft: TaskDraft) -> str:
        return self.task_set.format(domain=draft.domain)

    def _current(self, task_set: str) -> tuple[Task, ...]:
        try:
            return self.registry.load(task_set).tasks
        except TaskSetError:
            return ()

    def _version_holding(self, task_set: str, task_id: str, content_hash: str) -> int | None:
        for version in reversed(self.registry.versions(task_set)):
            loaded = self.registry.load(task_set, version)
            if content_hash in loaded.manifest.task_hashes:
                return version
            if task_id in loaded.manifest.task_ids:
                return None  # an older edit of the task: publish the new one
        return None

    @contextmanager
    def _locked(self, task_set: str) -> Iterator[None]:
        self.registry.root.mkdir(parents=True, exist_ok=True)
        with (self.registry.root / f".{task_set}.lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _seal(
        self, task: Task, task_set: str, version: int, content_hash: str, draft: TaskDraft, reviewer: str
    ) -> dict[str, Any]:
        chain = EpisodeChain(f"task:{task.task_id}", tenant=self.tenant, source=self.source, clock=self.clock)
        event = chain.append(
            TaskPromoted(
                task_id=task.task_id,
                task_set=task_set,
                task_set_version=version,
                content_hash=content_hash,
                source_episode_id=draft.source_episode_id,
                reviewer=reviewer,
            ),
            subject=task.task_id,
        )
        return to_structured(event)
