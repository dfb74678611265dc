"""The sandbox deal system: the fund's package, recommendation, information-request and
investment-committee endpoints over one world.

Routes come from `adapters.credit.wire.ENDPOINTS`; each validates its arguments, passes the fault
injector, runs the same pure domain logic the sim runs, writes the change through to SQL, and
answers JSON, or, for a period's statements, the document the borrower sent (an `.xlsx` workbook,
or the extracted text of PDF pages, damaged as `SandboxConfig.document_noise` says). Admin routes
load, reset and snapshot the world, add packages, change the fund policy and set faults and
document damage at runtime; they need the configured admin bearer token.

Every route is `async`: they all run on the event loop, one at a time between awaits, so the world
store needs no lock.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from adapters.credit.documents.noise import NoiseConfig
from adapters.credit.documents.periods import NotPrintable, period_document
from adapters.credit.errors import DomainError
from adapters.credit.logic import apply
from adapters.credit.models import CreditPackage, FundPolicy
from adapters.credit.results import FinancialStatementsResult
from adapters.credit.sandbox.config import SandboxConfig
from adapters.credit.sandbox.seed import seed_world
from adapters.credit.sandbox.store import SqlWorldStore
from adapters.credit.tools import CREDIT_TOOLS_BY_NAME
from adapters.credit.wire import ENDPOINTS, Endpoint
from adapters.credit.world import World
from adapters.faults import FaultConfig, FaultInjector
from adapters.toolbox import validation_error
from schemas.tools import ToolError

Handler = Callable[[Request], Awaitable[Response]]


class SandboxState:
    """What the routes share: the store, the fault injector, the damage, the world to reset to."""

    def __init__(self, config: SandboxConfig, world: World | None = None) -> None:
        self.config = config
        self.noise = config.document_noise
        self.store = SqlWorldStore(config.db_url)
        self.faults = FaultInjector(config.faults)
        self._initial = world
        if config.reset or self.store.load() is None:
            self.store.replace(self.initial_world())

    def initial_world(self) -> World:
        if self._initial is not None:
            return self._initial
        if self.config.world_path:
            return World.model_validate_json(Path(self.config.world_path).read_text())
        return seed_world()


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
    spec = CREDIT_TOOLS_BY_NAME[tool]

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
    if endpoint.document and isinstance(result, FinancialStatementsResult):
        return _document(world.package(result.package_id), result, state.noise)
    return _json(result)


def _document(
    package: CreditPackage, result: FinancialStatementsResult, noise: NoiseConfig | None
) -> Response:
    """The period as the borrower sent it; its figures as JSON where no statement can print them."""
    borrower = package.borrower
    try:
        body, media_type = period_document(
            result.period, borrower.name, borrower.fiscal_year_end_month, noise
        )
    except NotPrintable:
        return _json(result)
    headers = {"content-disposition": f'attachment; filename="{package.package_id}-{result.period.label}"'}
    return Response(body, media_type=media_type, headers=headers)


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
    router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Depends(_admin_token_check(state))])

    @router.get("/world")
    async def snapshot() -> Response:
        return _json(state.store.world)

    @router.put("/world")
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

    @router.put("/faults")
    async def set_faults(config: FaultConfig) -> FaultConfig:
        state.faults.configure(config)
        return config

    @router.put("/document-noise")
    async def set_noise(noise: NoiseConfig | None = None) -> dict[str, Any]:
        state.noise = noise
        return {"document_noise": None if noise is None else noise.model_dump(mode="json")}

    @router.put("/fund-policy")
    async def set_policy(policy: FundPolicy) -> FundPolicy:
        state.store.commit(state.store.world.model_copy(update={"policy": policy}))
        return policy

    @router.put("/packages/{package_id}")
    async def put_package(package_id: str, package: CreditPackage) -> Response:
        if package.package_id != package_id:
            return _error(
                ToolError(kind="validation", message="the path and the body name different packages"), 422
            )
        world = state.store.world
        state.store.commit(world.model_copy(update={"packages": {**world.packages, package_id: package}}))
        return _json(package)

    return router


def create_app(config: SandboxConfig | None = None, world: World | None = None) -> FastAPI:
    """The sandbox as an ASGI app (serve it with uvicorn); `world` replaces the seed world."""
    state = SandboxState(config or SandboxConfig(), world)
    app = FastAPI(
        title="Loopline credit sandbox (deal system)", version="1", docs_url="/docs", redoc_url=None
    )
    app.state.sandbox = state
    for tool, endpoint in ENDPOINTS.items():
        app.add_api_route(
            endpoint.path, _tool_route(state, tool, endpoint), methods=[endpoint.method], name=tool
        )
    app.include_router(_admin_router(state))

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "today": state.store.world.today.isoformat()}

    return app
