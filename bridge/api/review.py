"""Expert review of task drafts: the JSON API and a server-rendered page (plain forms, no JS build).

Reviewers only. A draft waits for a decision while its promotion workflow does
(`workflows.promotion`): the reviewer approves it with an outcome spec (the suggested one with the
form's choices, or one given as JSON) or rejects it with a reason. An approval answers once the
workflow has validated the task: published, or returned with the gate report that says why. The
routes read the draft store and hand decisions to a `ReviewDesk` (the Temporal one in production),
so this module knows nothing of Temporal.

The reviewer on every decision is the signed-in identity (`Caller.identity`: the person the token
is configured for), never a field of the request. A decision that says whether the source episode
handled the case right is also the reviewer's label of that episode in the label store, so expert
agreement is measured on reviewers' judgements.

The page signs a reviewer in with the same bearer tokens, typed once into a login form; the cookie
then holds an opaque server-side session id (`bridge.api.review_sessions`: HttpOnly,
SameSite=Strict, Secure over https; it expires and can be ended), every form carries the session's
CSRF token, a POST from another origin is refused, and sign-in attempts are rate limited.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from fastapi import APIRouter, Depends, HTTPException, status
from pydantic import ValidationError

from adapters.drafting.draft import TaskDraft
from adapters.drafting.store import (
    DraftStore,
    DraftStoreError,
    GatePreview,
    Gold,
    PromotionStatus,
)
from bridge.api.auth import Caller, Role, require
from bridge.api.labels import Labelling
from bridge.api.responses import GUARDED, WITH_BODY, conflict, merge, not_found
from bridge.api.review_console import LATEST_EPISODES, AdapterSource, AgreementSource, Console
from bridge.api.review_domain import ReviewDomain
from bridge.api.review_models import (
    Approval,
    DraftCase,
    DraftSummary,
    Duplicate,
    Preview,
    Rejection,
    RevealedText,
    ReviewAnswer,
)
from bridge.api.review_reveal import NotRevealed, reveal_text
from bridge.api.review_sessions import ReviewSessions
from bridge.phi import PhiVault
from bridge.store.labels import ExpertLabel
from bridge.store.reader import EpisodeStore
from schemas.tasks import VerifierSpec

NO_REVIEW = (
    "this bridge serves no task drafts (no promotion workflows are configured: "
    "set LOOPLINE_BRIDGE_TEMPORAL_ADDRESS and LOOPLINE_BRIDGE_DRAFTS_DIR)"
)


class Outcome(Protocol):
    """What a decision led to (the workflow's `ReviewOutcome`)."""

    @property
    def stage(self) -> str: ...
    @property
    def report_id(self) -> str | None: ...
    @property
    def task_set_version(self) -> int | None: ...


class ReviewDesk(Protocol):
    """Hands decisions to the promotion workflows; raises `ValueError` when one is refused."""

    def approve(
        self, draft_id: str, spec: VerifierSpec, reviewer: str, note: str = "", gold: Gold | None = None
    ) -> Outcome: ...
    def preview(self, draft_id: str, spec: VerifierSpec, gold: Gold | None = None) -> GatePreview: ...
    def reject(self, draft_id: str, reviewer: str, reason: str) -> Outcome: ...


@dataclass(frozen=True)
class Reviewing:
    """What the review routes need: the draft store, the desk that delivers decisions, and the
    page's sign-in sessions."""

    store: DraftStore
    desk: ReviewDesk | None = None
    sessions: ReviewSessions = field(default_factory=ReviewSessions)
    domains: Mapping[str, ReviewDomain] = field(default_factory=dict)
    """Each domain's write tools, hand-off tool and code tables (from the composition root)."""
    vault: PhiVault | None = None
    """Where a document's real text is revealed from, on a reviewer's request (None: never)."""
    agreements: AgreementSource | None = None
    """Measures reviewers' agreement for the console (None: the console shows none)."""
    adapters: AdapterSource | None = None
    """Reads the release registry's adapters for the console (None: the console lists none)."""


@dataclass(frozen=True)
class ReviewCases:
    """The drafts as reviewers see them, and decisions delivered under the caller's identity; the
    JSON routes and the page share it."""

    reviewing: Reviewing | None
    reader: EpisodeStore
    labelling: Labelling | None = None

    @property
    def sessions(self) -> ReviewSessions:
        """The page's sessions (a bridge without drafts still signs reviewers in)."""
        return self.reviewing.sessions if self.reviewing is not None else _NO_DRAFTS_SESSIONS

    def domain(self, name: str) -> ReviewDomain:
        """What the page knows of a domain (nothing, for a domain it was not given)."""
        known = self.reviewing.domains if self.reviewing is not None else {}
        return known.get(name, ReviewDomain())

    def case(self, draft_id: str) -> DraftCase:
        """One draft with everything a reviewer judges it by; 404 when unknown."""
        # Without a draft store there are no drafts: an unknown draft, not a server fault.
        store = self.reviewing.store if self.reviewing is not None else None
        try:
            found = store.status(draft_id) if store is not None else None
            draft = store.draft(draft_id) if store is not None else None
        except DraftStoreError:  # not a draft id at all
            found = draft = None
        if store is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown draft {draft_id!r}: {NO_REVIEW}")
        if found is None or draft is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown draft {draft_id!r}")
        suggestion = store.suggestion(draft_id)
        return DraftCase(
            status=found,
            draft=draft,
            suggestion=suggestion,
            suggested_spec=store.spec(suggestion.spec_hash) if suggestion else None,
            spec=store.spec(found.spec_hash) if found.spec_hash else None,
            report=store.report(found.report_id) if found.report_id else None,
            note=store.note(found.note_id) if found.note_id else None,
            notifications=store.notifications(draft_id),
            reveals=store.reveals(draft_id),
            timeline=self.reader.episode_events(draft.source_episode_id),
        )

    def summaries(self, every: bool) -> list[DraftSummary]:
        """The queue: drafts waiting (or every draft), each with the drafts it may duplicate."""
        if self.reviewing is None:
            return []
        store = self.reviewing.store
        drafts = {row.draft_id: (row, store.draft(row.draft_id)) for row in store.statuses()}
        rows = store.statuses() if every else store.pending()
        out = []
        for row in rows:
            draft = drafts.get(row.draft_id, (row, None))[1]
            out.append(
                DraftSummary(
                    status=row,
                    item_id=draft.work_item.item_id if draft else None,
                    rule=draft.rule if draft else None,
                    fidelity=draft.fidelity.share if draft else None,
                    duplicates=[d.draft_id for d in _duplicates(draft, drafts)] if draft else [],
                )
            )
        return out

    def duplicates(self, draft: TaskDraft) -> list[Duplicate]:
        """Other drafts of the same case, with why they look the same."""
        if self.reviewing is None:
            return []
        store = self.reviewing.store
        return _duplicates(
            draft, {row.draft_id: (row, store.draft(row.draft_id)) for row in store.statuses()}
        )

    def preview(
        self, draft_id: str, spec: VerifierSpec | None = None, gold: Gold | None = None
    ) -> GatePreview:
        """What the gates say about `spec` (default: the suggested one) and `gold` (default: the
        reference's) on the draft, deciding nothing; 404 for an unknown draft, 409 without a spec,
        503 without a desk."""
        current = self.case(draft_id)
        desk = self.reviewing.desk if self.reviewing is not None else None
        if desk is None:
            raise HTTPException(
                status.HTTP_503_SERVICE_UNAVAILABLE, "no review desk (Temporal) is configured here"
            )
        spec = spec or current.suggested_spec
        if spec is None:
            raise HTTPException(status.HTTP_409_CONFLICT, "no suggested spec yet: send one")
        try:
            return desk.preview(draft_id, spec, gold)
        except ValueError as exc:
            raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None

    def console(self) -> Console:
        """The latest episodes, every draft, the adapters, the reviewers' labels and agreement,
        reminders and the PHI access log."""
        labels = self.labelling.labels.list_labels(source="reviewer") if self.labelling is not None else []
        store = self.reviewing.store if self.reviewing is not None else None
        measure = self.reviewing.agreements if self.reviewing is not None else None
        adapters = self.reviewing.adapters if self.reviewing is not None else None
        return Console.of(
            self.summaries(True),
            labels,
            measure() if measure is not None else None,
            store.notifications() if store is not None else [],
            store.reveals() if store is not None else [],
            episodes=self.reader.list_episodes(limit=LATEST_EPISODES),
            adapters=adapters() if adapters is not None else None,
        )

    def reveal(self, draft_id: str, document_id: str, caller: Caller) -> str:
        """A document's real text for `caller` (logged, granted or not); 404 for an unknown draft,
        409 when it cannot be revealed."""
        current = self.case(draft_id)
        assert self.reviewing is not None  # case() answered: there is a draft store
        try:
            return reveal_text(
                current.timeline,
                draft_id=draft_id,
                document_id=document_id,
                reviewer=caller.identity,
                vault=self.reviewing.vault,
                store=self.reviewing.store,
            )
        except NotRevealed as exc:
            raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None

    def decide(
        self, draft_id: str, caller: Caller, approval: Approval | None, rejection: Rejection | None
    ) -> ReviewAnswer:
        """Deliver a decision under `caller`'s identity; label the source episode when judged."""
        current = self.case(draft_id)
        if self.reviewing is None:
            raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "no draft store is configured here")
        desk = self.reviewing.desk
        if desk is None:
            raise HTTPException(
                status.HTTP_503_SERVICE_UNAVAILABLE, "no review desk (Temporal) is configured here"
            )
        judgement = approval.judgement if approval is not None else rejection.judgement if rejection else None
        if judgement is not None and self.labelling is None:
            raise HTTPException(
                status.HTTP_503_SERVICE_UNAVAILABLE, "no label store is configured here: send no judgement"
            )
        reviewer = caller.identity
        label = None
        if judgement is not None:  # built before the decision goes out, so a bad label sends nothing
            episode = self.reader.get_episode(current.draft.source_episode_id)
            said = (approval.note if approval else rejection.reason if rejection else "").strip()
            try:
                label = ExpertLabel(
                    subject=current.draft.source_episode_id,
                    reviewer=reviewer,
                    label=judgement,
                    reason=said or f"approved the resolution of draft {draft_id}",
                    task_id=episode.episode.task_id if episode is not None else None,
                    source="reviewer",
                    labelled_at=datetime.now(UTC),
                )
            except ValidationError as exc:
                detail = "; ".join(e["msg"] for e in exc.errors())
                raise HTTPException(422, f"the judgement cannot be a label: {detail}") from None
        try:
            if approval is not None:
                spec = approval.spec or current.suggested_spec
                if spec is None:
                    raise HTTPException(status.HTTP_409_CONFLICT, "no suggested spec yet: send one")
                outcome = desk.approve(draft_id, spec, reviewer, approval.note, approval.gold)
            else:
                assert rejection is not None
                outcome = desk.reject(draft_id, reviewer, rejection.reason)
        except ValueError as exc:
            raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None
        if label is not None and self.labelling is not None:
            self.labelling.labels.put(label)
        report = self.reviewing.store.report(outcome.report_id) if outcome.report_id else None
        return ReviewAnswer(
            stage=outcome.stage,
            report_id=outcome.report_id,
            report=report,
            task_set_version=outcome.task_set_version,
            reviewer=reviewer,
            label=label,
        )


_NO_DRAFTS_SESSIONS = ReviewSessions()


def _duplicates(
    draft: TaskDraft, drafts: dict[str, tuple[PromotionStatus, TaskDraft | None]]
) -> list[Duplicate]:
    out = []
    for other_id, (row, other) in drafts.items():
        if other is None or other_id == draft.draft_id:
            continue
        if draft.content_hash and other.content_hash == draft.content_hash:
            why = "the same rebuilt case"
        elif other.work_item.item_id == draft.work_item.item_id and other.rule == draft.rule:
            why = f"the same work item {draft.work_item.item_id} found by the same rule"
        elif other.source_episode_id == draft.source_episode_id:
            why = "the same source episode"
        else:
            continue
        out.append(Duplicate(other_id, row.stage, why))
    return out


def review_api(cases: ReviewCases) -> APIRouter:
    """`/v1/review/...` (JSON). Without a draft store there are no drafts (empty lists, 404s); with a
    store but no desk, decisions answer 503."""
    router = APIRouter(tags=["review"])
    reviewer = require(Role.REVIEWER)
    api = [Depends(reviewer)]
    draft = not_found("draft")
    decision = merge(
        WITH_BODY, draft, conflict("The draft is not waiting for this decision, or no spec was sent.")
    )

    @router.get("/v1/review/drafts", response_model=list[DraftSummary], dependencies=api, responses=GUARDED)
    def list_drafts(all: bool = False) -> list[DraftSummary]:
        """Drafts waiting for a reviewer, oldest first (`all=true`: every draft, newest first)."""
        return cases.summaries(all)

    @router.get(
        "/v1/review/drafts/{draft_id}",
        response_model=DraftCase,
        dependencies=api,
        responses=merge(GUARDED, draft),
    )
    def show_draft(draft_id: str) -> DraftCase:
        """One draft with its suggestion, spec, gate report, notes and the episode's timeline."""
        return cases.case(draft_id)

    @router.post(
        "/v1/review/drafts/{draft_id}/approve",
        response_model=ReviewAnswer,
        responses=merge(GUARDED, decision),
    )
    def approve(draft_id: str, body: Approval, caller: Caller = Depends(reviewer)) -> ReviewAnswer:
        """Approve with a spec, as the caller; answers once validated: `published`, or `returned`
        with the report."""
        return cases.decide(draft_id, caller, body, None)

    @router.post(
        "/v1/review/drafts/{draft_id}/preview",
        response_model=GatePreview,
        dependencies=api,
        responses=merge(GUARDED, decision),
    )
    def preview(draft_id: str, body: Preview) -> GatePreview:
        """The gates an approval with `spec` (default: the suggested one) would run, and the
        domain's blind desks; nothing is decided or stored."""
        return cases.preview(draft_id, body.spec, body.gold)

    @router.post(
        "/v1/review/drafts/{draft_id}/documents/{document_id}/reveal",
        response_model=RevealedText,
        responses=merge(
            GUARDED, draft, conflict("The text cannot be revealed (never read, no vault, refused).")
        ),
    )
    def reveal(draft_id: str, document_id: str, caller: Caller = Depends(reviewer)) -> RevealedText:
        """A document's real text (PHI), as the source episode read it; every request is in the
        access log with the caller's identity."""
        return RevealedText(document_id=document_id, text=cases.reveal(draft_id, document_id, caller))

    @router.post(
        "/v1/review/drafts/{draft_id}/reject", response_model=ReviewAnswer, responses=merge(GUARDED, decision)
    )
    def reject(draft_id: str, body: Rejection, caller: Caller = Depends(reviewer)) -> ReviewAnswer:
        """Reject with a reason, as the caller; nothing is published."""
        return cases.decide(draft_id, caller, None, body)

    return router
