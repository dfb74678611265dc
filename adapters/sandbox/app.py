"""The sandbox live system as an ASGI app: a domain's tool routes over one world, with the admin and
fault plumbing every domain shares.

Routes come from the domain's `ToolRoutes`; each validates its arguments, passes the fault
injector, runs the same pure domain logic the sim runs, writes the change through to SQL, and
answers JSON (or, for a document endpoint, what the domain's `send_document` makes of the result).
Admin routes load, reset and snapshot the world and set faults at runtime, plus the domain's own
(`SandboxDomain.admin_routes`), so production exceptions can be produced on demand; they need the
configured admin bearer token.

Every route is `async`: they all run on the event loop, one at a time between awaits, so the world
store needs no lock (a sync admin route would run in a thread, racing the tool routes).
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from adapters.faults import FaultConfig, FaultInjector
from adapters.json_safe import json_safe
from adapters.refusal import DomainRefusal
from adapters.sandbox.config import SandboxBase
from adapters.sandbox.openapi import ADMIN_BODY, ADMIN_REFUSALS, Schemas, error_components, tool_operation
from adapters.strict_unicode import RefuseLoneSurrogates
from adapters.toolbox import validation_error
from adapters.wire import Endpoint, ToolRoutes
from adapters.world_store import WorldStore
from schemas.tools import ToolError

W = TypeVar("W", bound=BaseModel)
Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class SandboxDomain(Generic[W]):
    """What one domain brings to the sandbox."""

    title: str
    routes: ToolRoutes
    store: Callable[[str], WorldStore[W]]
    """db URL → the domain's world store (which knows the world model)."""
    seed: Callable[[], W]
    """The world a sandbox starts from without a `world_path` (the config may adjust it)."""
    apply: Callable[[W, str, Any], tuple[BaseModel, W]]
    """The pure domain logic: (world, tool, args) → (result, new world); refuses with a
    `DomainRefusal`."""
    config_type: type[SandboxBase] = SandboxBase
    """The domain's `SandboxConfig` (the common settings plus its own)."""
    adjust: Callable[[W, SandboxBase], W] = lambda world, config: world
    """Config overrides applied to every initial world (payer rules, limits)."""
    send_document: Callable[[SandboxState[W], W, Any, BaseModel], Response] | None = None
    """(state, world before the call, args, result) → the answer of a document endpoint."""
    admin_routes: Callable[[APIRouter, SandboxState[W]], None] = lambda router, state: None
    """Adds the domain's own control routes to the admin router."""


class SandboxState(Generic[W]):
    """What the routes share: the store, the fault injector, the world to reset to, and anything the
    domain's routes keep between calls (`extra`)."""

    def __init__(self, domain: SandboxDomain[W], config: SandboxBase, world: W | None = None) -> None:
        self.domain = domain
        self.config = config
        self.store = domain.store(config.db_url)
        self.faults = FaultInjector(config.faults)
        self.extra: dict[str, Any] = {}
        self._initial = world
        if config.reset or self.store.load() is None:
            self.store.replace(self.initial_world())

    def initial_world(self) -> W:
        if self._initial is not None:
            return self._initial
        if self.config.world_path:
            world = self.store.world_type.model_validate_json(Path(self.config.world_path).read_text())
        else:
            world = self.domain.seed()
        return self.domain.adjust(world, self.config)


def error_response(error: ToolError, status: int) -> Response:
    return JSONResponse({"error": error.model_dump(mode="json")}, status_code=status)


def json_response(model: Any) -> Response:
    return Response(model.model_dump_json(), media_type="application/json")


async def _arguments(request: Request, endpoint: Endpoint) -> dict[str, Any]:
    if endpoint.method == "POST":
        body = await request.json()
        if not isinstance(body, dict):
            raise ValueError("the request body must be a JSON object")
    else:
        body = dict(request.query_params)
    return {**body, **request.path_params}


def _tool_route(state: SandboxState[Any], tool: str, endpoint: Endpoint) -> Handler:
    spec = state.domain.routes.tools[tool]

    async def handle(request: Request) -> Response:
        fault = state.faults.decide(tool)
        if fault is not None and fault.kind == "http_error":
            message = f"injected fault: HTTP {fault.status} on {tool}"
            return error_response(
                ToolError(kind="http", message=message, status_code=fault.status), fault.status
            )
        if fault is not None and fault.kind == "latency":
            await asyncio.sleep(fault.delay_s)
        if fault is not None and fault.kind == "timeout" and not fault.apply_write:
            await asyncio.sleep(fault.delay_s)  # stall first: the request never takes effect
            return error_response(ToolError(kind="timeout", message="gateway timeout"), 504)
        try:
            args = spec.args_model.model_validate(await _arguments(request, endpoint))
        except ValidationError as exc:
            return error_response(validation_error(exc), 422)
        except ValueError as exc:  # body is not JSON, or not an object
            return error_response(ToolError(kind="validation", message=str(exc)), 400)
        except StarletteHTTPException as exc:  # a body `RefuseLoneSurrogates` refused while it was read
            return error_response(ToolError(kind="validation", message=str(exc.detail)), exc.status_code)
        response = _run(state, tool, endpoint, args)
        if fault is not None and fault.kind == "timeout":
            await asyncio.sleep(fault.delay_s)  # the change is made; the answer comes too late
        return response

    return handle


def _run(state: SandboxState[Any], tool: str, endpoint: Endpoint, args: Any) -> Response:
    world = state.store.world
    try:
        result, new_world = state.domain.apply(world, tool, args)
    except DomainRefusal as refusal:
        return error_response(refusal.to_tool_error(refusal.http_status), refusal.http_status)
    state.store.commit(new_world)
    send = state.domain.send_document
    if endpoint.document is None or send is None:
        return json_response(result)
    return send(state, world, args, result)


def _admin_token_check(state: SandboxState[Any]) -> Callable[[Request], Awaitable[None]]:
    """A dependency admitting only `Authorization: Bearer <config.admin_token>` (401 otherwise)."""
    expected = f"Bearer {state.config.admin_token}".encode()

    async def check(request: Request) -> None:
        given = request.headers.get("authorization", "").encode()
        if not hmac.compare_digest(given, expected):
            raise HTTPException(
                401,
                "the sandbox's admin routes need its admin bearer token",
                headers={"WWW-Authenticate": "Bearer"},
            )

    return check


def _admin_router(state: SandboxState[W]) -> APIRouter:
    router = APIRouter(
        prefix="/admin",
        tags=["admin"],
        dependencies=[Depends(_admin_token_check(state))],
        responses=ADMIN_REFUSALS,
    )

    @router.get("/world")
    async def snapshot() -> Response:
        return json_response(state.store.world)

    async def load(world: Any) -> dict[str, str]:
        state.store.replace(world)
        return {"status": "loaded"}

    # The body is the domain's world model, so FastAPI validates it and documents its schema.
    load.__annotations__ = {"world": state.store.world_type, "return": dict[str, str]}
    router.put("/world", responses=ADMIN_BODY)(load)

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

    state.domain.admin_routes(router, state)
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


def create_sandbox_app(
    domain: SandboxDomain[W], config: SandboxBase | None = None, world: W | None = None
) -> FastAPI:
    """The domain's sandbox as an ASGI app (serve it with uvicorn); `world` replaces the seed world."""
    state = SandboxState(domain, config or domain.config_type(), world)
    app = FastAPI(title=domain.title, version="1", docs_url="/docs", redoc_url=None)
    app.state.sandbox = state
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_middleware(RefuseLoneSurrogates)
    components: Schemas = {}
    for tool, endpoint in domain.routes.endpoints.items():
        app.add_api_route(
            endpoint.path,
            _tool_route(state, tool, endpoint),
            methods=[endpoint.method],
            name=tool,
            openapi_extra=tool_operation(domain.routes.tools[tool], endpoint, components),
        )
    error_components(components)
    app.include_router(_admin_router(state))
    _with_components(app, components)

    @app.get("/health")
    async def health() -> dict[str, str]:
        today = getattr(state.store.world, "today", None)
        return {"status": "ok", **({"today": today.isoformat()} if today is not None else {})}

    return app
