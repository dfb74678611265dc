"""The promotion workflow's inputs and results: one `…Input` and one `…Result` per workflow and
activity, pydantic, converted by Temporal's pydantic data converter.

Everything here ends up in a Temporal history, so it carries ids, hashes, counts and stages only:
never a draft, a world, a recorded answer or a reviewer's words (those live in the draft store).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adapters.drafting.store import Stage, StageRecord
from schemas.base import Contract


class ReviewTimers(Contract):
    """How long a draft may wait for a reviewer before a reminder, and before an escalation."""

    reminder_after_s: float = Field(default=4 * 3600, gt=0)
    """Seconds without a decision before the reviewers are reminded."""
    escalate_after_s: float = Field(default=24 * 3600, gt=0)
    """Seconds without a decision before the review is escalated to the reviewers' lead."""


class PromoteInput(Contract):
    """One edge case to promote."""

    fingerprint: str = Field(min_length=8, max_length=128)
    """The edge case's fingerprint (the workflow id derives from it)."""
    episode_id: str = Field(min_length=1, max_length=128)
    """The episode the case was seen in."""
    rule: str = Field(min_length=1, max_length=128)
    """The rule that found it."""
    timers: ReviewTimers = Field(default_factory=ReviewTimers)
    """Reminder and escalation times."""


class PromoteResult(Contract):
    """How the promotion ended."""

    status: Literal["published", "rejected", "duplicate"]
    """Published as a new task-set version, rejected by the reviewer, or already in the task set."""
    draft_id: str
    """The draft."""
    task_id: str | None = None
    """The promoted task, or the existing task it duplicates."""
    task_set_version: int | None = None
    """The new version, when published."""
    content_hash: str | None = None
    """The promoted task's content hash."""
    event_id: str | None = None
    """The `task.promoted` event's id."""


class BuildDraftInput(Contract):
    """Build (or find) the draft of an edge case's episode."""

    fingerprint: str
    """The edge case."""
    episode_id: str
    """Its episode."""
    rule: str
    """The rule that found it."""


class BuildDraftResult(Contract):
    """The stored draft."""

    draft_id: str
    """Its id in the draft store."""
    content_hash: str
    """Its content hash."""
    fidelity: float
    """Share of the episode's calls the rebuilt sim reproduces."""
    accepted: bool
    """At or above the configured threshold."""


class FindDuplicateInput(Contract):
    """Look for the draft's case in the current task set."""

    draft_id: str
    """The draft."""


class FindDuplicateResult(Contract):
    """The task that already covers the case, if any."""

    duplicate_of: str | None = None
    """Its task id."""


class SuggestSpecInput(Contract):
    """Suggest an outcome spec for a draft."""

    draft_id: str
    """The draft."""


class SuggestSpecResult(Contract):
    """The suggested spec, stored."""

    spec_hash: str
    """Its hash in the draft store."""
    solved: bool
    """Whether the reference specialist's gold meets it and doing nothing does not."""


class RecordStageInput(StageRecord):
    """Write where the promotion stands into the draft store (what the review page shows)."""


class RecordStageResult(Contract):
    """The stage was written."""

    stage: Stage
    """The stage written."""


class NotifyReviewersInput(Contract):
    """Remind the reviewers of a waiting draft, or escalate it."""

    draft_id: str
    """The draft."""
    kind: Literal["reminder", "escalation"]
    """Which."""
    round: int
    """The review round."""


class NotifyReviewersResult(Contract):
    """Sent (once per draft, kind and round)."""

    sent: bool
    """False when it had been sent already."""


class ValidateCandidateInput(Contract):
    """Run the gates on the task the draft becomes under a spec."""

    draft_id: str
    """The draft."""
    spec_hash: str
    """The approved spec."""
    gold_hash: str | None = None
    """The reviewer's gold; None: the reference specialist's."""


class ValidateCandidateResult(Contract):
    """The gates' verdict."""

    ok: bool
    """Every gate held."""
    report_id: str
    """The gate report in the draft store."""
    problems: int
    """How many problems it lists."""


class PublishTaskInput(Contract):
    """Publish the validated task as a new task-set version and announce it."""

    draft_id: str
    """The draft."""
    spec_hash: str
    """The approved spec."""
    gold_hash: str | None = None
    """The reviewer's gold; None: the reference specialist's."""
    reviewer: str
    """Who approved it."""
    workflow_id: str
    """This workflow."""


class PublishTaskResult(Contract):
    """Where the task went."""

    task_id: str
    """The task."""
    task_set: str
    """The task set."""
    version: int
    """The version that contains it."""
    content_hash: str
    """The task's content hash."""
    event_id: str | None = None
    """The `task.promoted` event (None for a duplicate)."""
    duplicate_of: str | None = None
    """A task of the set already holding the same draft, published meanwhile by another case's
    workflow (same episode, another rule): nothing was published."""


class ReviewDecision(Contract):
    """An expert's decision on a draft (the workflow's `review` update)."""

    decision: Literal["approve", "reject"]
    """Approve with a spec, or reject."""
    reviewer: str = Field(min_length=1, max_length=128)
    """Who decided."""
    spec_hash: str | None = None
    """The approved spec (as suggested or edited), stored in the draft store first."""
    gold_hash: str | None = None
    """The reviewer's gold (`Gold`, in the draft store) where their resolution replaces the
    reference specialist's; None: the reference specialist's calls are the gold."""
    note_id: str | None = None
    """The reviewer's reason, stored in the draft store first."""


class ReviewOutcome(Contract):
    """What the decision led to, once the workflow acted on it."""

    stage: Stage
    """`published`, `returned` (a gate failed: see the report), or `rejected`."""
    report_id: str | None = None
    """The gate report, when validated."""
    task_set_version: int | None = None
    """The new version, when published."""


class PromotionState(Contract):
    """The workflow's own view (the `state` query)."""

    stage: Stage
    """Where it is."""
    draft_id: str | None = None
    """The draft, once built."""
    round: int = 0
    """Review round."""
    spec_hash: str | None = None
    """The spec under review."""
    report_id: str | None = None
    """The latest gate report."""
    reminders: int = 0
    """Reminders sent."""
    escalated: bool = False
    """Whether the review was escalated."""
