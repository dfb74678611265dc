"""The review API's wire models: a draft as the queue lists it and as a reviewer judges it, the
decisions and previews a reviewer sends, and what they lead to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from adapters.drafting.draft import TaskDraft
from adapters.drafting.store import (
    GateReport,
    Gold,
    Notification,
    PromotionStatus,
    Reveal,
    ReviewNote,
    Suggestion,
)
from bridge.api.models import Body
from bridge.store.labels import ExpertLabel, LabelValue
from bridge.store.views import StoredEvent
from schemas.tasks import VerifierSpec


@dataclass(frozen=True)
class Duplicate:
    """Another draft of the same case."""

    draft_id: str
    stage: str
    why: str


class DraftSummary(Body):
    """One draft in the review queue."""

    status: PromotionStatus
    """Where its promotion stands."""
    item_id: str | None = None
    """The work item (claim) it replays."""
    rule: str | None = None
    """The rule that found the edge case."""
    fidelity: float | None = None
    """Share of the episode's calls the rebuilt sim reproduces."""
    duplicates: list[str] = Field(default_factory=list)
    """Other drafts of the same case (same work item and rule, or the same content)."""


class DraftCase(Body):
    """A draft as a reviewer judges it."""

    status: PromotionStatus
    """Where its promotion stands."""
    draft: TaskDraft
    """The draft: work item, rebuilt world, recorded calls, fidelity (surrogates for PHI)."""
    suggestion: Suggestion | None = None
    """The suggested spec's hash, the reference specialist's gold, whether it solves the draft."""
    suggested_spec: VerifierSpec | None = None
    """The suggested spec itself."""
    spec: VerifierSpec | None = None
    """The spec under review (the reviewer's, after an approval)."""
    report: GateReport | None = None
    """The latest gate report."""
    note: ReviewNote | None = None
    """The reviewer's latest note."""
    notifications: list[Notification] = Field(default_factory=list)
    """Reminders and escalations sent about it."""
    reveals: list[Reveal] = Field(default_factory=list)
    """The access log: who asked to read which of its documents' real text, and when."""
    timeline: list[StoredEvent] = Field(default_factory=list)
    """The source episode's archived events (PHI as capture tokens)."""


class Approval(Body):
    """Approve a draft; the reviewer is the caller's identity, never a field."""

    spec: VerifierSpec | None = None
    """The outcome spec to validate and publish with; omitted: the suggested one."""
    gold: Gold | None = None
    """Calls that meet the spec, where the reviewer's resolution replaces the reference
    specialist's; omitted: the reference specialist's calls are the gold."""
    note: str = Field(default="", max_length=4000)
    """Anything the reviewer wants on record."""
    judgement: LabelValue | None = None
    """Whether the source episode handled the case right; given, it is the reviewer's label of it."""


class Preview(Body):
    """Ask what the gates say about a spec before approving with it."""

    spec: VerifierSpec | None = None
    """The outcome spec to preview; omitted: the suggested one."""
    gold: Gold | None = None
    """The reviewer's gold to preview with it; omitted: the reference specialist's calls."""


class Rejection(Body):
    """Reject a draft; the reviewer is the caller's identity, never a field."""

    reason: str = Field(min_length=1, max_length=4000)
    """Why, in words another billing specialist can check."""
    judgement: LabelValue | None = None
    """Whether the source episode handled the case right; given, it is the reviewer's label of it."""


class RevealedText(Body):
    """A document's real text, revealed to the caller (and logged)."""

    document_id: str
    """The document."""
    text: str
    """Its text as the source episode read it."""


class ReviewAnswer(Body):
    """What the decision led to."""

    stage: Literal["published", "returned", "rejected"] | str
    """`published`, `returned` (a gate failed; see the report) or `rejected`."""
    report_id: str | None = None
    """The gate report, when validated."""
    report: GateReport | None = None
    """The report itself."""
    task_set_version: int | None = None
    """The new task-set version, when published."""

    reviewer: str = ""
    """Who the decision is recorded under: the signed-in identity."""
    label: ExpertLabel | None = None
    """The reviewer's label of the source episode, when the decision judged it."""
