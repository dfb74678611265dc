"""The bridge HTTP API (FastAPI): run episodes, a tool gateway, an outcome webhook, read endpoints.

Roles (least privilege; docs/architecture.md has the matrix): `agent` runs episodes, uses the
gateway and reads only its own episodes; `integration` reports later outcomes; `reviewer` reads
every episode, labels trajectories and reviews drafts; `operator` reads episodes and capture's
state and is the only role that can reveal PHI. OpenAPI at
`/openapi.json`. The routes live in `bridge.api.routes` (and `bridge.api.labels`, `bridge.api.review`); they reach
this process's services through the dependencies in `bridge.api.deps`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from adapters.strict_unicode import RefuseLoneSurrogates
from bridge.api.auth import TokenTable
from bridge.api.body_limit import BodyLimit
from bridge.api.draining import Draining
from bridge.api.invalid import invalid_request
from bridge.api.labels import Labelling, label_router
from bridge.api.owners import EpisodeOwners
from bridge.api.quota import CallerQuota
from bridge.api.review import Reviewing
from bridge.api.review_web import review_router
from bridge.api.routes import episodes, gateway, metrics, operator, outcomes, read
from bridge.api.runs import RunRegistry
from bridge.api.services import BridgeServices
from bridge.api.sessions import GatewaySessions, SessionError
from bridge.store.reader import EpisodeStore

MAX_BODY_BYTES = 1_000_000


async def session_error(_: Request, exc: Exception) -> JSONResponse:
    """A gateway call on an episode that is unknown, closed or over budget."""
    assert isinstance(exc, SessionError)
    return JSONResponse({"detail": str(exc)}, status_code=exc.status)


async def recording_unavailable(_: Request, exc: Exception) -> JSONResponse:
    """503 with the reason when an event cannot be recorded: nothing runs unrecorded."""
    detail = (
        "an event could not be recorded, and the bridge does nothing further without a record"
        f" (a tool whose call could not be recorded was not run): {exc}"
    )
    return JSONResponse({"detail": detail}, status_code=503, headers={"Retry-After": "5"})


def create_app(services: BridgeServices, tokens: TokenTable) -> FastAPI:
    """The API over `services`, admitting the callers in `tokens`."""
    app = FastAPI(title="Loopline bridge", version="1", description=__doc__)
    app.state.tokens, app.state.services = tokens, services
    app.state.sessions, app.state.runs = GatewaySessions(services.toolbox), RunRegistry()
    app.state.owners, app.state.draining = EpisodeOwners(), False
    app.state.quota = CallerQuota(services.max_episodes_per_caller)
    app.add_middleware(RefuseLoneSurrogates)  # inside the body limit, which bounds what it keeps
    app.add_middleware(Draining, state=app.state)
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)  # outermost: before parsing and auth
    app.add_exception_handler(SessionError, session_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    for unavailable in services.unavailable:
        app.add_exception_handler(unavailable, recording_unavailable)
    for router in (operator.ops, episodes.router, gateway.router, outcomes.router, read.router):
        app.include_router(router)
    app.include_router(metrics.router)
    mount_mcp(app, services, tokens)
    app.include_router(label_router(services.labelling, services.reader))
    app.include_router(review_router(services.review, services.reader, services.labelling))
    app.include_router(operator.router)
    return app


def mount_mcp(app: FastAPI, services: BridgeServices, tokens: TokenTable) -> None:
    """The MCP endpoint at `/mcp/` over the gateway's sessions (`bridge.api.mcp_server`); its
    session manager runs in the app's lifespan."""
    from bridge.api.mcp_server import mcp_app

    mcp = mcp_app(services, app.state.sessions, tokens, app.state.owners, path="/")
    app.mount("/mcp", mcp)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(outer: Any) -> AsyncIterator[Any]:
        async with mcp.router.lifespan_context(mcp), inner(outer) as state:
            yield state

    app.router.lifespan_context = lifespan


def review_app(
    reviewing: Reviewing, reader: EpisodeStore, tokens: TokenTable, labelling: Labelling | None = None
) -> FastAPI:
    """The review page and its API alone, admitting the callers in `tokens` (the demo's `--review`);
    with `labelling`, decisions that judge the source episode are labels in it."""
    app = FastAPI(title="Loopline review")
    app.state.tokens = tokens
    app.add_middleware(RefuseLoneSurrogates)
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.include_router(review_router(reviewing, reader, labelling))
    return app
