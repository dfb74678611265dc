"""`PromoteEdgeCaseWorkflow`: one production edge case → a reviewed, validated task in a task set.

draft (refused below the fidelity threshold) → deduplicate against the current task set → suggest
an outcome spec from the reference specialist's resolution → wait for an expert's review (the
`review` update; a reminder, then an escalation, when nobody answers in time) → validate the gates
→ a failed gate goes back to the reviewer with its report → publish a new task-set version and a
`task.promoted` event. The workflow id derives from the fingerprint, so a case is promoted at most
once. All I/O is in activities; this code only decides, and replays deterministically.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from adapters.drafting.store import Stage
    from workflows.promotion.activities import PromotionActivities
    from workflows.promotion.models import (
        BuildDraftInput,
        FindDuplicateInput,
        NotifyReviewersInput,
        PromoteInput,
        PromoteResult,
        PromotionState,
        PublishTaskInput,
        RecordStageInput,
        ReviewDecision,
        ReviewOutcome,
        SuggestSpecInput,
        ValidateCandidateInput,
    )

QUICK = timedelta(seconds=30)
HEAVY = timedelta(minutes=5)  # the gates replay every mutant and exploit of the task
RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))


def workflow_id_for(fingerprint: str) -> str:
    """The one workflow id of an edge case."""
    return f"promote-{fingerprint}"


@workflow.defn
class PromoteEdgeCaseWorkflow:
    """Promote one edge case to a task, with an expert in the loop."""

    def __init__(self) -> None:
        self._stage: Stage = "drafting"
        self._draft_id: str | None = None
        self._round = 0
        self._spec_hash: str | None = None
        self._report_id: str | None = None
        self._reminders = 0
        self._escalated = False
        self._reviewer: str | None = None
        self._note_id: str | None = None
        self._decision: ReviewDecision | None = None
        self._received = 0  # decisions the update accepted; each gets its own outcome
        self._current = 0  # the decision this round acts on
        self._outcomes: dict[int, ReviewOutcome] = {}

    @workflow.run
    async def run(self, data: PromoteInput) -> PromoteResult:
        built = await workflow.execute_activity_method(
            PromotionActivities.build_task_draft,
            BuildDraftInput(fingerprint=data.fingerprint, episode_id=data.episode_id, rule=data.rule),
            start_to_close_timeout=HEAVY,
            retry_policy=RetryPolicy(initial_interval=timedelta(seconds=1), maximum_attempts=20),
        )
        self._draft_id = built.draft_id
        if not built.accepted:
            await self._record(data, "refused")
            raise ApplicationError(
                f"draft {built.draft_id} refused: fidelity {built.fidelity:.2f} is below the threshold",
                type="DraftRefused",
                non_retryable=True,
            )
        duplicate = await workflow.execute_activity_method(
            PromotionActivities.find_duplicate,
            FindDuplicateInput(draft_id=built.draft_id),
            start_to_close_timeout=QUICK,
            retry_policy=RETRY,
        )
        if duplicate.duplicate_of is not None:
            await self._record(data, "duplicate")
            return PromoteResult(status="duplicate", draft_id=built.draft_id, task_id=duplicate.duplicate_of)
        suggestion = await workflow.execute_activity_method(
            PromotionActivities.suggest_outcome_spec,
            SuggestSpecInput(draft_id=built.draft_id),
            start_to_close_timeout=HEAVY,
            retry_policy=RETRY,
        )
        self._spec_hash = suggestion.spec_hash
        while True:
            self._round += 1
            await self._record(data, "awaiting_review" if self._round == 1 else "returned")
            decision = await self._await_review(data)
            self._reviewer, self._note_id = decision.reviewer, decision.note_id
            if decision.decision == "reject" or decision.spec_hash is None:
                await self._record(data, "rejected")
                self._outcomes[self._current] = ReviewOutcome(stage="rejected")
                return PromoteResult(status="rejected", draft_id=built.draft_id)
            self._spec_hash = decision.spec_hash
            await self._record(data, "validating")
            verdict = await workflow.execute_activity_method(
                PromotionActivities.validate_candidate,
                ValidateCandidateInput(
                    draft_id=built.draft_id, spec_hash=decision.spec_hash, gold_hash=decision.gold_hash
                ),
                start_to_close_timeout=HEAVY,
                retry_policy=RETRY,
            )
            self._report_id = verdict.report_id
            if not verdict.ok:
                await self._record(data, "returned")
                self._outcomes[self._current] = ReviewOutcome(stage="returned", report_id=verdict.report_id)
                continue
            await self._record(data, "publishing")
            published = await workflow.execute_activity_method(
                PromotionActivities.publish_task,
                PublishTaskInput(
                    draft_id=built.draft_id,
                    spec_hash=decision.spec_hash,
                    gold_hash=decision.gold_hash,
                    reviewer=decision.reviewer,
                    workflow_id=workflow.info().workflow_id,
                ),
                start_to_close_timeout=QUICK,
                retry_policy=RETRY,
            )
            if published.duplicate_of is not None:
                await self._record(data, "duplicate")
                self._outcomes[self._current] = ReviewOutcome(stage="duplicate", report_id=verdict.report_id)
                return PromoteResult(
                    status="duplicate", draft_id=built.draft_id, task_id=published.duplicate_of
                )
            self._stage = "published"
            self._outcomes[self._current] = ReviewOutcome(
                stage="published", report_id=verdict.report_id, task_set_version=published.version
            )
            return PromoteResult(
                status="published",
                draft_id=built.draft_id,
                task_id=published.task_id,
                task_set_version=published.version,
                content_hash=published.content_hash,
                event_id=published.event_id,
            )

    async def _await_review(self, data: PromoteInput) -> ReviewDecision:
        """The next decision; a reminder after `reminder_after_s`, an escalation after
        `escalate_after_s` (both counted from when this round began)."""
        timers = data.timers
        waits: list[tuple[Literal["reminder", "escalation"], float]] = [
            ("reminder", timers.reminder_after_s),
            ("escalation", max(timers.escalate_after_s - timers.reminder_after_s, 0.001)),
        ]
        for kind, seconds in waits:
            try:
                await workflow.wait_condition(
                    lambda: self._decision is not None, timeout=timedelta(seconds=seconds)
                )
                break
            except TimeoutError:
                await workflow.execute_activity_method(
                    PromotionActivities.notify_reviewers,
                    NotifyReviewersInput(draft_id=self._draft_id or "", kind=kind, round=self._round),
                    start_to_close_timeout=QUICK,
                    retry_policy=RETRY,
                )
                if kind == "reminder":
                    self._reminders += 1
                else:
                    self._escalated = True
                await self._record(data, self._stage)
        await workflow.wait_condition(lambda: self._decision is not None)
        decision, self._decision, self._current = self._decision, None, self._received
        assert decision is not None
        return decision

    async def _record(self, data: PromoteInput, stage: Stage) -> None:
        self._stage = stage
        await workflow.execute_activity_method(
            PromotionActivities.record_stage,
            RecordStageInput(
                draft_id=self._draft_id or "",
                workflow_id=workflow.info().workflow_id,
                fingerprint=data.fingerprint,
                stage=stage,
                round=self._round,
                spec_hash=self._spec_hash,
                report_id=self._report_id,
                reviewer=self._reviewer,
                note_id=self._note_id,
                reminders=self._reminders,
                escalated=self._escalated,
            ),
            start_to_close_timeout=QUICK,
            retry_policy=RETRY,
        )

    @workflow.update
    async def review(self, decision: ReviewDecision) -> ReviewOutcome:
        """An expert's decision; answers once the workflow has acted on it (published, returned
        with a gate report, or rejected)."""
        self._received += 1
        mine = self._received
        self._decision = decision
        await workflow.wait_condition(lambda: mine in self._outcomes)
        return self._outcomes[mine]

    @review.validator
    def validate_review(self, decision: ReviewDecision) -> None:
        if self._stage not in ("awaiting_review", "returned") or self._decision is not None:
            raise ValueError(f"this draft is not waiting for a review (stage {self._stage})")
        if decision.decision == "approve" and not decision.spec_hash:
            raise ValueError("an approval needs the spec's hash")

    @workflow.query
    def state(self) -> PromotionState:
        """Where the promotion stands."""
        return PromotionState(
            stage=self._stage,
            draft_id=self._draft_id,
            round=self._round,
            spec_hash=self._spec_hash,
            report_id=self._report_id,
            reminders=self._reminders,
            escalated=self._escalated,
        )
