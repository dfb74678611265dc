"""Expert review of task drafts: the JSON API and a server-rendered page (plain forms, no JS build).

Reviewers (and operators) only. A draft waits for a decision while its promotion workflow does
(`workflows.promotion`): the reviewer approves it with an outcome spec (the suggested one, or an
edited one) or rejects it with a reason. An approval answers once the workflow has validated the
task: published, or returned with the gate report that says why. The routes read the draft store
and hand decisions to a `ReviewDesk` (the Temporal one in production), so this module knows
nothing of Temporal.

The page authenticates with the same bearer tokens, typed once into a login form and kept in an
HttpOnly, SameSite=Strict cookie (so a form posted from another site carries no credentials).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, Protocol
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import Field, ValidationError
from starlette.concurrency import run_in_threadpool

from adapters.drafting.draft import TaskDraft
from adapters.drafting.store import (
    DraftStore,
    DraftStoreError,
    GateReport,
    Notification,
    PromotionStatus,
    ReviewNote,
    Suggestion,
)
from bridge.api import review_page
from bridge.api.auth import Role, TokenTable, require
from bridge.api.models import Body
from bridge.api.responses import GUARDED, WITH_BODY, conflict, merge, not_found
from bridge.store.reader import EpisodeStore
from bridge.store.views import StoredEvent
from schemas.base import PRINTABLE
from schemas.tasks import VerifierSpec

COOKIE = "loopline_review"
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

    def approve(self, draft_id: str, spec: VerifierSpec, reviewer: str, note: str = "") -> Outcome: ...
    def reject(self, draft_id: str, reviewer: str, reason: str) -> Outcome: ...


@dataclass(frozen=True)
class Reviewing:
    """What the review routes need: the draft store and the desk that delivers decisions."""

    store: DraftStore
    desk: ReviewDesk | None = None


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
    timeline: list[StoredEvent] = Field(default_factory=list)
    """The source episode's archived events (PHI as capture tokens)."""


class Approval(Body):
    """Approve a draft."""

    reviewer: str = Field(min_length=1, max_length=128, pattern=PRINTABLE)
    """Who approves."""
    spec: VerifierSpec | None = None
    """The outcome spec to validate and publish with; omitted: the suggested one."""
    note: str = Field(default="", max_length=4000)
    """Anything the reviewer wants on record."""


class Rejection(Body):
    """Reject a draft."""

    reviewer: str = Field(min_length=1, max_length=128, pattern=PRINTABLE)
    """Who rejects."""
    reason: str = Field(min_length=1, max_length=4000)
    """Why, in words another billing specialist can check."""


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


def review_router(reviewing: Reviewing | None, reader: EpisodeStore) -> APIRouter:
    """`/v1/review/...` (JSON) and `/review/...` (the page). Without a draft store there are no
    drafts (empty lists, 404s); with a store but no desk, decisions answer 503."""
    router = APIRouter(tags=["review"])
    api = [Depends(require(Role.REVIEWER))]

    def desk() -> Reviewing:
        if reviewing is None:
            raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "no draft store is configured here")
        return reviewing

    def case(draft_id: str) -> DraftCase:
        # Without a draft store there are no drafts: an unknown draft, not a server fault.
        store = reviewing.store if reviewing is not None else None
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
            timeline=reader.episode_events(draft.source_episode_id),
        )

    def summaries(every: bool) -> list[DraftSummary]:
        if reviewing is None:
            return []
        store = reviewing.store
        out = []
        for row in store.statuses() if every else store.pending():
            draft = store.draft(row.draft_id)
            out.append(
                DraftSummary(
                    status=row,
                    item_id=draft.work_item.item_id if draft else None,
                    rule=draft.rule if draft else None,
                    fidelity=draft.fidelity.share if draft else None,
                )
            )
        return out

    def decide(draft_id: str, approval: Approval | None, rejection: Rejection | None) -> ReviewAnswer:
        current = case(draft_id)
        reviewing_ = desk()
        if reviewing_.desk is None:
            raise HTTPException(
                status.HTTP_503_SERVICE_UNAVAILABLE, "no review desk (Temporal) is configured here"
            )
        try:
            if approval is not None:
                spec = approval.spec or current.suggested_spec
                if spec is None:
                    raise HTTPException(status.HTTP_409_CONFLICT, "no suggested spec yet: send one")
                outcome = reviewing_.desk.approve(draft_id, spec, approval.reviewer, approval.note)
            else:
                assert rejection is not None
                outcome = reviewing_.desk.reject(draft_id, rejection.reviewer, rejection.reason)
        except ValueError as exc:
            raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None
        report = reviewing_.store.report(outcome.report_id) if outcome.report_id else None
        return ReviewAnswer(
            stage=outcome.stage,
            report_id=outcome.report_id,
            report=report,
            task_set_version=outcome.task_set_version,
        )

    # -- JSON -------------------------------------------------------------------------------
    draft = not_found("draft")
    decision = merge(
        WITH_BODY, draft, conflict("The draft is not waiting for this decision, or no spec was sent.")
    )

    @router.get("/v1/review/drafts", response_model=list[DraftSummary], dependencies=api, responses=GUARDED)
    def list_drafts(all: bool = False) -> list[DraftSummary]:
        """Drafts waiting for a reviewer, oldest first (`all=true`: every draft, newest first)."""
        return summaries(all)

    @router.get(
        "/v1/review/drafts/{draft_id}",
        response_model=DraftCase,
        dependencies=api,
        responses=merge(GUARDED, draft),
    )
    def show_draft(draft_id: str) -> DraftCase:
        """One draft with its suggestion, spec, gate report, notes and the episode's timeline."""
        return case(draft_id)

    @router.post(
        "/v1/review/drafts/{draft_id}/approve",
        response_model=ReviewAnswer,
        dependencies=api,
        responses=merge(GUARDED, decision),
    )
    def approve(draft_id: str, body: Approval) -> ReviewAnswer:
        """Approve with a spec; answers once validated: `published`, or `returned` with the report."""
        return decide(draft_id, body, None)

    @router.post(
        "/v1/review/drafts/{draft_id}/reject",
        response_model=ReviewAnswer,
        dependencies=api,
        responses=merge(GUARDED, decision),
    )
    def reject(draft_id: str, body: Rejection) -> ReviewAnswer:
        """Reject with a reason; nothing is published."""
        return decide(draft_id, None, body)

    # -- the page ---------------------------------------------------------------------------
    def signed_in(request: Request) -> bool:
        table: TokenTable = request.app.state.tokens
        token = request.cookies.get(COOKIE)
        return token is not None and table.role_of(token) is Role.REVIEWER

    def to_login() -> RedirectResponse:
        return RedirectResponse("/review/login", status_code=status.HTTP_303_SEE_OTHER)

    async def form(request: Request) -> dict[str, str]:
        raw = (await request.body()).decode("utf-8", errors="replace")
        return {key: values[0] for key, values in parse_qs(raw, keep_blank_values=True).items()}

    @router.get("/review/login", response_class=HTMLResponse, include_in_schema=False)
    def login_page(failed: bool = False) -> str:
        return review_page.login(failed)

    @router.post("/review/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        token = (await form(request)).get("token", "")
        table: TokenTable = request.app.state.tokens
        if table.role_of(token) is not Role.REVIEWER:
            return RedirectResponse("/review/login?failed=true", status_code=status.HTTP_303_SEE_OTHER)
        response = RedirectResponse("/review", status_code=status.HTTP_303_SEE_OTHER)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/review")
        return response

    @router.get("/review", response_class=HTMLResponse, include_in_schema=False)
    def queue_page(request: Request, all: bool = False) -> Response:
        if not signed_in(request):
            return to_login()
        return HTMLResponse(review_page.queue(summaries(all), every=all))

    @router.get("/review/drafts/{draft_id}", response_class=HTMLResponse, include_in_schema=False)
    def draft_page(request: Request, draft_id: str, message: str = "") -> Response:
        if not signed_in(request):
            return to_login()
        return HTMLResponse(review_page.draft(case(draft_id), message=message))

    @router.post("/review/drafts/{draft_id}/decide", include_in_schema=False)
    async def decide_page(request: Request, draft_id: str) -> Response:
        if not signed_in(request):
            return to_login()
        fields = await form(request)
        try:
            if fields.get("decision") == "approve":
                chosen = json.loads(fields.get("spec") or "null") or case(draft_id).suggested_spec
                approval = Approval(
                    reviewer=fields.get("reviewer", ""),
                    spec=VerifierSpec.model_validate(chosen),
                    note=fields.get("note", ""),
                )
                answer = await run_in_threadpool(decide, draft_id, approval, None)
            else:
                rejection = Rejection(reviewer=fields.get("reviewer", ""), reason=fields.get("reason", ""))
                answer = await run_in_threadpool(decide, draft_id, None, rejection)
            message = f"decision recorded: {answer.stage}"
        except (ValidationError, json.JSONDecodeError) as exc:
            message = f"not sent: {review_page.first_error(exc)}"
        except HTTPException as exc:
            message = f"not sent: {exc.detail}"
        return HTMLResponse(review_page.draft(case(draft_id), message=message))

    return router
