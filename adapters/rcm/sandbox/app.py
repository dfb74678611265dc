"""The sandbox live system: payer, clearinghouse and practice-management endpoints over one world.

Routes come from `adapters.rcm.wire.ENDPOINTS`; each one validates its arguments, passes the fault
injector, runs the same pure domain logic the sim runs, writes the change through to SQL, and
answers JSON (or X12 835 for remittances). Admin routes load, reset and snapshot the world and set
payer rules and faults at runtime, so production exceptions can be produced on demand; they need
the configured admin bearer token (`SandboxConfig.admin_token`).

Every route is `async`: they all run on the event loop, one at a time between awaits, so the world
store needs no lock (a sync admin route would run in a thread, racing the tool routes).
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from adapters.json_safe import json_safe
from adapters.rcm.bulletins import publish_bulletin
from adapters.rcm.errors import DomainError
from adapters.rcm.fixtures import seed_world
from adapters.rcm.logic import apply
from adapters.rcm.models import PayerRules, Practice
from adapters.rcm.sandbox.config import FaultConfig, SandboxConfig
from adapters.rcm.sandbox.faults import FaultInjector
from adapters.rcm.sandbox.openapi import (
    ADMIN_BODY,
    ADMIN_REFUSALS,
    ADMIN_UNKNOWN,
    Schemas,
    error_components,
    tool_operation,
)
from adapters.rcm.sandbox.store import SqlWorldStore
from adapters.rcm.tools import RCM_TOOLS_BY_NAME
from adapters.rcm.wire import ENDPOINTS, X12_MEDIA_TYPE, Endpoint
from adapters.rcm.world import World
from adapters.rcm.x12 import write_835
from adapters.strict_unicode import RefuseLoneSurrogates
from adapters.toolbox import validation_error
from schemas.tools import ToolError

Handler = Callable[[Request], Awaitable[Response]]


class SandboxState:
    """What the routes share: the store, the fault injector, and the world to reset to."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.store = SqlWorldStore(config.db_url)
        self.faults = FaultInjector(config.faults)
        if config.reset or self.store.load() is None:
            self.store.replace(self.initial_world())

    def initial_world(self) -> World:
        if self.config.world_path:
            world = World.model_validate_json(Path(self.config.world_path).read_text())
        else:
            world = seed_world()
        payers = dict(world.payers)
        for payer_id, rules in self.config.payer_rules.items():
            payers[payer_id] = world.payer(payer_id).model_copy(update={"rules": rules})
        practice = world.practice
        if self.config.write_off_approval_limit is not None:
            practice = practice.model_copy(
                update={"write_off_approval_limit": self.config.write_off_approval_limit}
            )
        return world.model_copy(update={"payers": payers, "practice": practice})


def _error(error: ToolError, status: int) -> Response:
    return JSONResponse({"error": error.model_dump(mode="json")}, status_code=status)


def _json(model: Any) -> Response:
    return Response(model.model_dump_json(), media_type="application/json")


async def _arguments(request: Request, endpoint: Endpoint) -> dict[str, Any]:
    if endpoint.method == "POST":
        body = await request.json()
        if not isinstance(body, dict):
            raise ValueError("the request body must be a JSON object")
    else:
        body = dict(request.query_params)
    return {**body, **request.path_params}


def _tool_route(state: SandboxState, tool: str, endpoint: Endpoint) -> Handler:
    spec = RCM_TOOLS_BY_NAME[tool]

    async def handle(request: Request) -> Response:
        fault = state.faults.decide(tool)
        if fault is not None and fault.kind == "http_error":
            message = f"injected fault: HTTP {fault.status} on {tool}"
            return _error(ToolError(kind="http", message=message, status_code=fault.status), fault.status)
        if fault is not None and fault.kind == "latency":
            await asyncio.sleep(fault.delay_s)
        if fault is not None and fault.kind == "timeout" and not fault.apply_write:
            await asyncio.sleep(fault.delay_s)  # stall first: the request never takes effect
            return _error(ToolError(kind="timeout", message="gateway timeout"), 504)
        try:
            args = spec.args_model.model_validate(await _arguments(request, endpoint))
        except ValidationError as exc:
            return _error(validation_error(exc), 422)
        except ValueError as exc:  # body is not JSON, or not an object
            return _error(ToolError(kind="validation", message=str(exc)), 400)
        except StarletteHTTPException as exc:  # a body `RefuseLoneSurrogates` refused while it was read
            return _error(ToolError(kind="validation", message=str(exc.detail)), exc.status_code)
        response = _run(state, tool, endpoint, args)
        if fault is not None and fault.kind == "timeout":
            await asyncio.sleep(fault.delay_s)  # the change is made; the answer comes too late
        return response

    return handle


def _run(state: SandboxState, tool: str, endpoint: Endpoint, args: Any) -> Response:
    world = state.store.world
    try:
        result, new_world = apply(world, tool, args)
    except DomainError as refusal:
        return _error(refusal.to_tool_error(refusal.http_status), refusal.http_status)
    state.store.commit(new_world)
    if not endpoint.x12:
        return _json(result)
    remittances = world.remittances_for(args.claim_id)
    if not remittances:
        return Response(status_code=204)
    names = {p.payer_id: p.name for p in world.payers.values()}
    return Response(write_835(remittances, names, world.practice, world.today), media_type=X12_MEDIA_TYPE)


def _admin_token_check(state: SandboxState) -> Callable[[Request], Awaitable[None]]:
    """A dependency admitting only `Authorization: Bearer <config.admin_token>` (401 otherwise)."""
    expected = f"Bearer {state.config.admin_token}".encode()

    async def check(request: Request) -> None:
        given = request.headers.get("authorization", "").encode()
        if not hmac.compare_digest(given, expected):
            raise HTTPException(401, "the sandbox's admin routes need its admin bearer token",
                                headers={"WWW-Authenticate": "Bearer"})  # fmt: skip

    return check


def _admin_router(state: SandboxState) -> APIRouter:
    router = APIRouter(
        prefix="/admin",
        tags=["admin"],
        dependencies=[Depends(_admin_token_check(state))],
        responses=ADMIN_REFUSALS,
    )

    @router.get("/world")
    async def snapshot() -> Response:
        return _json(state.store.world)

    @router.put("/world", responses=ADMIN_BODY)
    async def load(world: World) -> dict[str, str]:
        state.store.replace(world)
        return {"status": "loaded"}

    @router.post("/reset")
    async def reset() -> dict[str, str]:
        state.store.replace(state.initial_world())
        state.faults.configure(state.faults.config)
        return {"status": "reset"}

    @router.get("/faults")
    async def get_faults() -> FaultConfig:
        return state.faults.config

    @router.put("/faults", responses=ADMIN_BODY)
    async def set_faults(config: FaultConfig) -> FaultConfig:
        state.faults.configure(config)
        return config

    @router.put("/payers/{payer_id}/rules", responses={**ADMIN_BODY, **ADMIN_UNKNOWN})
    async def set_rules(payer_id: str, rules: PayerRules) -> Response:
        world = state.store.world
        try:
            payer = world.payer(payer_id).model_copy(update={"rules": rules})
        except DomainError as refusal:
            return _error(refusal.to_tool_error(404), 404)
        state.store.commit(world.model_copy(update={"payers": {**world.payers, payer_id: payer}}))
        return _json(payer)

    @router.post("/bulletins/{bulletin_id}/publish", responses=ADMIN_UNKNOWN)
    async def publish(bulletin_id: str) -> Response:
        try:
            world = publish_bulletin(state.store.world, bulletin_id)
        except DomainError as refusal:
            return _error(refusal.to_tool_error(404), 404)
        state.store.commit(world)
        return _json(world.bulletins[bulletin_id])

    @router.put("/practice", responses=ADMIN_BODY)
    async def set_practice(practice: Practice) -> Practice:
        state.store.commit(state.store.world.model_copy(update={"practice": practice}))
        return practice

    return router


async def _invalid_request(_: Request, exc: Exception) -> Response:
    """FastAPI's 422 for the admin routes, with non-finite numbers (`NaN` in a body) written as names."""
    assert isinstance(exc, RequestValidationError)
    return JSONResponse({"detail": json_safe(jsonable_encoder(exc.errors()))}, status_code=422)


def _with_components(app: FastAPI, components: Schemas) -> None:
    """Serve `components` (the tool models' schemas) in the app's OpenAPI document."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        schema = generate()
        known = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, definition in components.items():
            known.setdefault(name, definition)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(config: SandboxConfig | None = None) -> FastAPI:
    """The sandbox as an ASGI app (serve it with uvicorn)."""
    state = SandboxState(config or SandboxConfig())
    app = FastAPI(title="Loopline RCM sandbox", version="1", docs_url="/docs", redoc_url=None)
    app.state.sandbox = state
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_middleware(RefuseLoneSurrogates)
    components: Schemas = {}
    for tool, endpoint in ENDPOINTS.items():
        app.add_api_route(
            endpoint.path,
            _tool_route(state, tool, endpoint),
            methods=[endpoint.method],
            name=tool,
            openapi_extra=tool_operation(RCM_TOOLS_BY_NAME[tool], endpoint, components),
        )
    error_components(components)
    app.include_router(_admin_router(state))
    _with_components(app, components)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "today": state.store.world.today.isoformat()}

    return app
