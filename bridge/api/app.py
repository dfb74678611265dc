"""The bridge HTTP API (FastAPI): run episodes, a tool gateway, an outcome webhook, read endpoints.

Roles: `agent` runs episodes, uses the gateway and reports outcomes; `reviewer` reads and labels
trajectories; `operator` may do everything and is the only role that can reveal PHI. OpenAPI at
`/openapi.json`.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Query, Request, status
from fastapi.responses import JSONResponse

from bridge.api.auth import Role, TokenTable, require
from bridge.api.labels import label_router
from bridge.api.models import (
    CloseGatewayEpisode,
    EpisodeRun,
    GatewayEpisode,
    GatewayEscalation,
    GatewayToolCall,
    ObservedOutcome,
    OpenGatewayEpisode,
    Recorded,
    RejectedEvent,
    Revealed,
    StartEpisode,
)
from bridge.api.review import review_router
from bridge.api.services import BridgeServices
from bridge.api.sessions import GatewaySessions, SessionError
from bridge.runtime import EpisodeResult
from bridge.store.views import EdgeCaseView, EpisodeDetail, EpisodeSummary, StoredEvent, ToolErrorRate
from schemas import ToolResult, new_id
from schemas.events import OutcomeObserved

MAX_BODY_BYTES = 1_000_000
MAX_REMEMBERED_RUNS = 10_000
"""Runs `GET /v1/runs/{id}` can answer from memory; the archive holds every episode for good."""
PathId = str
AGENT = Depends(require(Role.AGENT))
READER = Depends(require(Role.REVIEWER, Role.AGENT))
OPERATOR = Depends(require(Role.OPERATOR))


def _run_view(result: EpisodeResult) -> EpisodeRun:
    return EpisodeRun(
        episode_id=result.episode_id,
        status=result.status,
        steps=result.steps,
        tool_calls=result.tool_calls,
        escalated=result.escalation is not None,
        escalation_reason=result.escalation.reason if result.escalation else None,
        final_message=result.final_message,
        error=result.error,
    )


def create_app(services: BridgeServices, tokens: TokenTable) -> FastAPI:
    """The API over `services`, admitting the callers in `tokens`."""
    app = FastAPI(title="Loopline bridge", version="1", description=__doc__)
    app.state.tokens = tokens
    sessions = GatewaySessions(services.toolbox)
    runs: dict[str, Future[EpisodeResult]] = {}
    runs_lock = threading.Lock()

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Any) -> Any:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return JSONResponse({"detail": f"body over {MAX_BODY_BYTES} bytes"}, status_code=413)
        return await call_next(request)

    @app.exception_handler(SessionError)
    async def session_error(_: Request, exc: SessionError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    for unavailable in services.unavailable:

        @app.exception_handler(unavailable)
        async def recording_unavailable(_: Request, exc: Exception) -> JSONResponse:
            detail = (
                "an event could not be recorded, and the bridge does nothing further without a record"
                f" (a tool whose call could not be recorded was not run): {exc}"
            )
            return JSONResponse({"detail": detail}, status_code=503, headers={"Retry-After": "5"})

    @app.get("/healthz", tags=["ops"])
    def healthz() -> dict[str, Any]:
        """`ok`, or `degraded` when the relay should run and does not (events then wait, safe, in
        the outbox); with capture's counters: pending, delivered, rejected, restarts, last error."""
        if services.capture_health is None:
            return {"status": "ok"}
        capture = services.capture_health()
        return {"status": capture["status"], "capture": capture}

    @app.post("/v1/episodes", tags=["episodes"], response_model=EpisodeRun, dependencies=[AGENT])
    def start_episode(body: StartEpisode) -> Any:
        """Run the deployed policy on a work item; `wait=false` answers 202 at once."""
        episode_id = new_id()
        future = services.executor.submit(
            services.runner.run, body.work_item, episode_id=episode_id, payload_model=services.payload_model
        )
        with runs_lock:
            runs[episode_id] = future
            if len(runs) > MAX_REMEMBERED_RUNS:  # forget the oldest finished runs (dicts keep order)
                for old in [key for key, f in runs.items() if f.done()][: len(runs) - MAX_REMEMBERED_RUNS]:
                    del runs[old]
        if not body.wait:
            return JSONResponse(
                EpisodeRun(episode_id=episode_id, status="running").model_dump(), status_code=202
            )
        return _run_view(future.result())

    @app.get("/v1/runs/{episode_id}", tags=["episodes"], response_model=EpisodeRun, dependencies=[READER])
    def get_run(episode_id: PathId) -> EpisodeRun:
        """An episode started through `POST /v1/episodes`, running or finished."""
        with runs_lock:
            future = runs.get(episode_id)
        if future is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no run {episode_id!r} in this process")
        if not future.done():
            return EpisodeRun(episode_id=episode_id, status="running")
        return _run_view(future.result())

    @app.post("/v1/gateway/episodes", tags=["gateway"], response_model=GatewayEpisode, dependencies=[AGENT])
    def open_gateway_episode(body: OpenGatewayEpisode) -> GatewayEpisode:
        """Open an episode whose tool calls an external agent sends through the bridge."""
        episode_id = new_id()
        sessions.open(
            episode_id,
            services.recorders(episode_id),
            body.work_item,
            model=body.model,
            max_steps=body.max_steps,
            payload_model=services.payload_model,
        )
        return GatewayEpisode(episode_id=episode_id, tools=services.toolbox.openai_tools())

    @app.post(
        "/v1/gateway/episodes/{episode_id}/calls",
        tags=["gateway"],
        response_model=ToolResult,
        dependencies=[AGENT],
    )
    def gateway_call(episode_id: PathId, body: GatewayToolCall) -> ToolResult:
        """Execute one tool call (validated, captured); failures come back as a failed result."""
        return sessions.call(episode_id, body.name, body.arguments, body.call_id)

    @app.post(
        "/v1/gateway/episodes/{episode_id}/escalate",
        tags=["gateway"],
        response_model=Recorded,
        dependencies=[AGENT],
    )
    def gateway_escalate(episode_id: PathId, body: GatewayEscalation) -> Recorded:
        """Hand the episode to a human."""
        event = sessions.escalate(
            episode_id, body.reason, recommendation=body.recommendation, queue=body.queue
        )
        return Recorded(event_id=event.id, seq=event.seq)

    @app.post(
        "/v1/gateway/episodes/{episode_id}/close",
        tags=["gateway"],
        response_model=Recorded,
        dependencies=[AGENT],
    )
    def gateway_close(episode_id: PathId, body: CloseGatewayEpisode) -> Recorded:
        """End the episode."""
        event = sessions.close(episode_id, body.status, final_message=body.final_message)
        return Recorded(event_id=event.id, seq=event.seq)

    @app.post(
        "/v1/outcomes", tags=["outcomes"], response_model=Recorded, status_code=202, dependencies=[AGENT]
    )
    def observe_outcome(body: ObservedOutcome) -> Recorded:
        """Webhook for a later business outcome; joined to the episode as `outcome.observed`."""
        if body.observed_at.tzinfo is None:
            raise HTTPException(422, "observed_at must carry a timezone")
        outcome = OutcomeObserved(
            kind=body.kind,
            item_id=body.item_id,
            observed_at=body.observed_at,
            amount=body.amount,
            reason_codes=tuple(body.reason_codes),
            external_ref=body.external_ref,
        )
        try:
            event = services.record_outcome(body.episode_id, outcome)
        except LookupError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown episode {body.episode_id!r}") from exc
        return Recorded(event_id=event.id, seq=event.seq)

    @app.get("/v1/episodes", tags=["read"], response_model=list[EpisodeSummary], dependencies=[READER])
    def list_episodes(
        status_: str | None = Query(None, alias="status", max_length=32),
        work_item_id: str | None = Query(None, max_length=128),
        limit: int = Query(50, ge=1, le=1000),
        offset: int = Query(0, ge=0, le=10_000_000),
    ) -> list[EpisodeSummary]:
        return services.reader.list_episodes(
            status=status_, work_item_id=work_item_id, limit=limit, offset=offset
        )

    @app.get("/v1/episodes/{episode_id}", tags=["read"], response_model=EpisodeDetail, dependencies=[READER])
    def get_episode(episode_id: PathId) -> EpisodeDetail:
        detail = services.reader.get_episode(episode_id)
        if detail is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown episode {episode_id!r}")
        return detail

    @app.get(
        "/v1/episodes/{episode_id}/events",
        tags=["read"],
        response_model=list[StoredEvent],
        dependencies=[READER],
    )
    def episode_events(episode_id: PathId) -> list[StoredEvent]:
        events = services.reader.episode_events(episode_id)
        if not events:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no events for episode {episode_id!r}")
        return events

    @app.get("/v1/edge-cases", tags=["read"], response_model=list[EdgeCaseView], dependencies=[READER])
    def list_edge_cases(
        rule: str | None = Query(None, max_length=128),
        limit: int = Query(50, ge=1, le=1000),
        offset: int = Query(0, ge=0, le=10_000_000),
    ) -> list[EdgeCaseView]:
        return services.reader.list_edge_cases(rule=rule, limit=limit, offset=offset)

    @app.get(
        "/v1/edge-cases/{fingerprint}", tags=["read"], response_model=EdgeCaseView, dependencies=[READER]
    )
    def get_edge_case(fingerprint: PathId) -> EdgeCaseView:
        case = services.reader.get_edge_case(fingerprint)
        if case is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown edge case {fingerprint!r}")
        return case

    @app.get("/v1/tool-error-rates", tags=["read"], response_model=list[ToolErrorRate], dependencies=[READER])
    def tool_error_rates() -> list[ToolErrorRate]:
        return services.reader.tool_error_rates()

    app.include_router(label_router(services.labelling, services.reader))
    app.include_router(review_router(services.review, services.reader))

    @app.get(
        "/v1/capture/rejected", tags=["operator"], response_model=list[RejectedEvent], dependencies=[OPERATOR]
    )
    def rejected_events() -> list[RejectedEvent]:
        """Events this bridge recorded but the relay could never ship (too large for the broker,
        unreadable), oldest first: kept in the outbox, counted in `/healthz` (operators only)."""
        return services.rejected_events() if services.rejected_events is not None else []

    @app.get("/v1/phi/{token}", tags=["operator"], response_model=Revealed, dependencies=[OPERATOR])
    def reveal(token: PathId) -> Revealed:
        """The raw value behind a PHI token (operators only; every reveal should be audited)."""
        try:
            return Revealed(token=token, value=services.reveal_phi(token))
        except LookupError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown token {token!r}") from exc
        except RuntimeError as exc:  # the vault refuses: wrong key, tampered row, ambiguous token
            raise HTTPException(
                status.HTTP_409_CONFLICT, f"token {token!r} cannot be revealed: {exc}"
            ) from exc

    return app
