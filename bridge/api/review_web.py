"""The review page's routes (`/review/...`): sign-in and sign-out, the queue, a draft, its decision,
and the console (every draft and its state) for operators and reviewers.

Every page needs a live session (`bridge.api.review_sessions`); without one it sends the browser to
sign in, and a decision posted without one is not recorded. Every POST is refused (403) when its
`Origin` is another site, and every form after sign-in also when it lacks the session's CSRF token.
The decision form is checked here (`bridge.api.review_form`): a form with problems comes back with
every problem listed (422) and nothing is sent. The page shows what the gates say about the spec
the form starts from (the gate preview: the workflow's own gates, run by the desk); the form's
"Preview the gates" button previews the spec as changed, and an approval whose spec is not the one
last previewed comes back with its preview instead of being sent, so a reviewer always sees the
gates' verdict on exactly what they commit to.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from adapters.drafting.store import PENDING, GatePreview, Gold
from bridge.api import review_form, review_page
from bridge.api.auth import Role, TokenTable
from bridge.api.labels import Labelling
from bridge.api.review import ReviewCases, Reviewing, review_api
from bridge.api.review_domain import ReviewDomain
from bridge.api.review_models import Approval, DraftCase, Rejection
from bridge.api.review_page import Viewer
from bridge.api.review_sessions import COOKIE, ReviewSession, over_https, same_origin
from bridge.store.reader import EpisodeStore
from schemas.tasks import VerifierSpec, content_hash

NOT_A_REVIEWER = "That token is not a reviewer's or an operator's."
SIGN_IN_ROLES = frozenset({Role.REVIEWER, Role.OPERATOR})
"""Who may sign in: reviewers (the review pages and the console) and operators (the console only)."""
CROSS_SITE = "refused: this form was posted from another site"
NO_CSRF = "refused: the form does not carry this session's token (reload the page and try again)"
PREVIEWED = "gates previewed on the spec as the form states it: nothing was sent"
PREVIEW_PROBLEMS = "nothing to preview: the form has problems"
NOT_PREVIEWED = (
    "not sent yet: the form's spec changed since its gate preview; check the preview below, then send again"
)


def _see(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=status.HTTP_303_SEE_OTHER)


async def _form(request: Request) -> dict[str, list[str]]:
    raw = (await request.body()).decode("utf-8", errors="replace")
    return parse_qs(raw, keep_blank_values=True)


def _cross_site(request: Request) -> bool:
    return not same_origin(request.headers.get("origin"), request.headers.get("host"))


def _offer(case: DraftCase, domain: ReviewDomain) -> review_form.Offer:
    suggestion = case.suggestion
    return review_form.Offer(
        suggested=case.suggested_spec,
        gold_tools=frozenset(c.name for c in suggestion.gold) if suggestion else frozenset(),
        offered=domain.write_tools,
        escalate_tool=domain.escalate_tool,
        escalations=domain.escalations,
        gold=suggestion.gold if suggestion else (),
        domain=domain,
        item_id=case.draft.work_item.item_id,
    )


def previewed_key(spec: VerifierSpec, gold: Gold | None) -> str:
    """What the form remembers of the spec and gold whose preview it showed (`GatePreview.key`)."""
    gold_hash = content_hash(gold.model_dump(mode="json")) if gold is not None else ""
    return f"{content_hash(spec.model_dump(mode='json'))}:{gold_hash}"


def review_router(
    reviewing: Reviewing | None, reader: EpisodeStore, labelling: Labelling | None = None
) -> APIRouter:
    """`/v1/review/...` (JSON) and `/review/...` (the page) over one `ReviewCases`. With
    `labelling`, a decision that judges the source episode is the reviewer's label of it."""
    cases = ReviewCases(reviewing, reader, labelling)
    router = APIRouter(tags=["review"])
    router.include_router(review_api(cases))
    router.include_router(review_pages(cases))
    return router


def review_pages(cases: ReviewCases) -> APIRouter:
    """The page's routes over `cases`."""
    router = APIRouter(include_in_schema=False)
    sessions = cases.sessions

    def session_of(request: Request) -> ReviewSession | None:
        return sessions.get(request.cookies.get(COOKIE))

    def reviewer_of(request: Request) -> tuple[ReviewSession | None, Response | None]:
        """A reviewer's session, or where to send the browser instead (sign-in; an operator: the console)."""
        session = session_of(request)
        if session is None:
            return None, _see("/review/login")
        if session.caller.role is not Role.REVIEWER:
            return None, _see("/review/console")
        return session, None

    def viewer(session: ReviewSession) -> Viewer:
        return Viewer(session.caller.identity, session.csrf)

    async def checked_post(
        request: Request,
    ) -> tuple[ReviewSession | None, dict[str, list[str]], Response | None]:
        """The session and form of a POST, or the response that refuses it."""
        session = session_of(request)
        if _cross_site(request):
            return session, {}, HTMLResponse(review_page.refused(CROSS_SITE), status.HTTP_403_FORBIDDEN)
        if session is None:
            return None, {}, _see("/review/login")
        fields = await _form(request)
        if not session.csrf_ok((fields.get("csrf") or [""])[0]):
            return session, fields, HTMLResponse(review_page.refused(NO_CSRF, viewer(session)), 403)
        return session, fields, None

    async def reviewer_post(
        request: Request, what: str
    ) -> tuple[ReviewSession | None, dict[str, list[str]], Response | None]:
        """A checked POST from a reviewer's session, or the response that refuses it."""
        session, fields, refused = await checked_post(request)
        if refused is None and session is not None and session.caller.role is not Role.REVIEWER:
            page = review_page.refused(f"refused: only a reviewer {what}", viewer(session))
            refused = HTMLResponse(page, status.HTTP_403_FORBIDDEN)
        return session, fields, refused

    @router.get("/review/login", response_class=HTMLResponse)
    def login_page(failed: bool = False) -> str:
        return review_page.login(NOT_A_REVIEWER if failed else "")

    @router.post("/review/login")
    async def login(request: Request) -> Response:
        if _cross_site(request):
            return HTMLResponse(review_page.refused(CROSS_SITE), status.HTTP_403_FORBIDDEN)
        client = request.client.host if request.client else "unknown"
        wait = sessions.retry_after(client)
        if wait is not None:
            note = f"Too many failed sign-ins: try again in {int(wait) + 1} seconds."
            headers = {"Retry-After": str(int(wait) + 1)}
            return HTMLResponse(review_page.login(note), status.HTTP_429_TOO_MANY_REQUESTS, headers=headers)
        token = ((await _form(request)).get("token") or [""])[0]
        table: TokenTable = request.app.state.tokens
        caller = table.caller_of(token)
        if caller is None or caller.role not in SIGN_IN_ROLES:
            sessions.failed(client)
            return _see("/review/login?failed=true")
        session = sessions.start(caller)
        response = _see("/review" if caller.role is Role.REVIEWER else "/review/console")
        response.set_cookie(
            COOKIE,
            session.id,
            max_age=int(sessions.ttl_s),
            httponly=True,
            samesite="strict",
            secure=over_https(request.url.scheme, request.headers.get("x-forwarded-proto")),
            path="/review",
        )
        return response

    @router.post("/review/logout")
    async def logout(request: Request) -> Response:
        session, _, refused = await checked_post(request)
        if refused is not None:
            return refused
        assert session is not None
        sessions.end(session.id)
        response = _see("/review/login")
        response.delete_cookie(COOKIE, path="/review")
        return response

    @router.get("/review/console", response_class=HTMLResponse)
    def console_page(request: Request) -> Response:
        session = session_of(request)
        if session is None:
            return _see("/review/login")
        can_review = session.caller.role is Role.REVIEWER
        return HTMLResponse(
            review_page.console(cases.console(), viewer=viewer(session), can_review=can_review)
        )

    @router.get("/review", response_class=HTMLResponse)
    def queue_page(request: Request, all: bool = False) -> Response:
        session, elsewhere = reviewer_of(request)
        if session is None:
            return elsewhere or _see("/review/login")
        return HTMLResponse(review_page.queue(cases.summaries(all), every=all, viewer=viewer(session)))

    def render(
        session: ReviewSession,
        draft_id: str,
        message: str = "",
        problems: tuple[str, ...] = (),
        filled: review_form.Choices | None = None,
        preview: GatePreview | None = None,
        revealed: tuple[str, str] | None = None,
    ) -> str:
        case = cases.case(draft_id)
        shown = case.spec or case.suggested_spec
        if preview is None and case.status.stage in PENDING and shown is not None and not problems:
            preview = previewed(draft_id, shown)
        return review_page.draft(
            case,
            viewer=viewer(session),
            choices=filled or review_form.choices(shown),
            domain=cases.domain(case.draft.domain),
            judged=cases.labelling is not None,
            duplicates=cases.duplicates(case.draft),
            message=message,
            problems=problems,
            preview=preview,
            revealed=revealed,
        )

    def previewed(draft_id: str, spec: VerifierSpec, gold: Gold | None = None) -> GatePreview | None:
        """The gate preview of `spec` (and `gold`), or None where no desk runs it (the page says so)."""
        try:
            return cases.preview(draft_id, spec, gold)
        except HTTPException:
            return None

    @router.get("/review/drafts/{draft_id}", response_class=HTMLResponse)
    def draft_page(request: Request, draft_id: str) -> Response:
        session, elsewhere = reviewer_of(request)
        if session is None:
            return elsewhere or _see("/review/login")
        try:
            return HTMLResponse(render(session, draft_id))
        except HTTPException as exc:  # an unknown draft: a page that says so, not JSON
            return HTMLResponse(review_page.refused(str(exc.detail), viewer(session)), exc.status_code)

    @router.post("/review/drafts/{draft_id}/documents/{document_id}/reveal")
    async def reveal_page(request: Request, draft_id: str, document_id: str) -> Response:
        """The draft again, with one document's real text shown in this answer only (logged)."""
        session, _, refused = await reviewer_post(request, "reads a draft's documents")
        if refused is not None or session is None:
            return refused or _see("/review/login")
        try:
            text = await run_in_threadpool(cases.reveal, draft_id, document_id, session.caller)
        except HTTPException as exc:
            if exc.status_code == status.HTTP_404_NOT_FOUND:
                return HTMLResponse(review_page.refused(str(exc.detail), viewer(session)), exc.status_code)
            page = await run_in_threadpool(render, session, draft_id, f"not revealed: {exc.detail}")
            return HTMLResponse(page, exc.status_code)
        message = f"the real text of {document_id} is shown below, to {session.caller.identity}; the reveal is logged"
        page = await run_in_threadpool(render, session, draft_id, message, revealed=(document_id, text))
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    @router.post("/review/drafts/{draft_id}/decide")
    async def decide_page(request: Request, draft_id: str) -> Response:
        session, fields, refused = await reviewer_post(request, "decides drafts")
        if refused is not None or session is None:
            return refused or _see("/review/login")
        case = cases.case(draft_id)
        offer = _offer(case, cases.domain(case.draft.domain))
        filled = review_form.sent(fields)

        async def again(message: str, code: int = 200, **more: Any) -> HTMLResponse:
            text = await run_in_threadpool(render, session, draft_id, message, filled=filled, **more)
            return HTMLResponse(text, code)

        if filled.action == "preview":  # the gates on the spec as the form states it; nothing is sent
            try:
                made = review_form.proposed(fields, offer)
            except review_form.FormProblems as exc:
                return await again(PREVIEW_PROBLEMS, 422, problems=exc.problems)
            shown = await run_in_threadpool(previewed, draft_id, made.spec, made.gold)
            return await again(PREVIEWED, preview=shown)
        try:
            decision = review_form.decide(fields, offer, judged=cases.labelling is not None)
        except review_form.FormProblems as exc:
            return await again("not sent: the form has problems", 422, problems=exc.problems)
        approval = rejection = None
        if decision.action == "approve":
            assert decision.spec is not None
            if filled.previewed != previewed_key(decision.spec, decision.gold):  # seen before committing
                shown = await run_in_threadpool(previewed, draft_id, decision.spec, decision.gold)
                return await again(NOT_PREVIEWED, preview=shown)
            approval = Approval(
                spec=decision.spec, gold=decision.gold, note=decision.reason, judgement=decision.judgement
            )
        else:
            rejection = Rejection(reason=decision.reason, judgement=decision.judgement)
        try:
            answer = await run_in_threadpool(cases.decide, draft_id, session.caller, approval, rejection)
            message = f"decision recorded: {answer.stage}, by {answer.reviewer}"
        except HTTPException as exc:
            message = f"not sent: {exc.detail}"
        return HTMLResponse(await run_in_threadpool(render, session, draft_id, message))

    return router
