"""The credit sandbox: the fund's package, recommendation, information-request and
investment-committee endpoints over one world (`adapters.sandbox` serves them).

A period's statements are answered as the document the borrower sent (an `.xlsx` workbook, or the
extracted text of PDF pages, damaged as `SandboxConfig.document_noise` says). Its own admin routes
add packages, change the fund policy and set the document damage at runtime.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Response
from pydantic import BaseModel

from adapters.credit.documents.noise import NoiseConfig
from adapters.credit.documents.periods import NotPrintable, period_document
from adapters.credit.logic import apply
from adapters.credit.models import CreditPackage, FundPolicy
from adapters.credit.results import FinancialStatementsResult
from adapters.credit.sandbox.config import SandboxConfig
from adapters.credit.sandbox.seed import seed_world
from adapters.credit.sandbox.store import SqlWorldStore
from adapters.credit.wire import ROUTES
from adapters.credit.world import World
from adapters.sandbox import SandboxDomain, SandboxState, create_sandbox_app
from adapters.sandbox.app import error_response, json_response
from adapters.sandbox.openapi import ADMIN_BODY
from schemas.tools import ToolError

NOISE = "document_noise"
"""The `SandboxState.extra` key of the damage the documents are served with."""


def _statements(state: SandboxState[World], world: World, args: Any, result: BaseModel) -> Response:
    """The period as the borrower sent it; its figures as JSON where no statement can print them."""
    assert isinstance(result, FinancialStatementsResult)
    package = world.package(result.package_id)
    borrower = package.borrower
    try:
        body, media_type = period_document(
            result.period, borrower.name, borrower.fiscal_year_end_month, state.extra.get(NOISE)
        )
    except NotPrintable:
        return json_response(result)
    headers = {"content-disposition": f'attachment; filename="{package.package_id}-{result.period.label}"'}
    return Response(body, media_type=media_type, headers=headers)


def _admin_routes(router: APIRouter, state: SandboxState[World]) -> None:
    assert isinstance(state.config, SandboxConfig)
    state.extra[NOISE] = state.config.document_noise

    @router.put("/document-noise", responses=ADMIN_BODY)
    async def set_noise(noise: NoiseConfig | None = None) -> dict[str, Any]:
        state.extra[NOISE] = noise
        return {"document_noise": None if noise is None else noise.model_dump(mode="json")}

    @router.put("/fund-policy", responses=ADMIN_BODY)
    async def set_policy(policy: FundPolicy) -> FundPolicy:
        state.store.commit(state.store.world.model_copy(update={"policy": policy}))
        return policy

    @router.put("/packages/{package_id}", responses=ADMIN_BODY)
    async def put_package(package_id: str, package: CreditPackage) -> Response:
        if package.package_id != package_id:
            message = "the path and the body name different packages"
            return error_response(ToolError(kind="validation", message=message), 422)
        world = state.store.world
        state.store.commit(world.model_copy(update={"packages": {**world.packages, package_id: package}}))
        return json_response(package)


SANDBOX: SandboxDomain[World] = SandboxDomain(
    "Loopline credit sandbox (deal system)",
    ROUTES,
    SqlWorldStore,
    seed_world,
    apply,
    SandboxConfig,
    send_document=_statements,
    admin_routes=_admin_routes,
)


def create_app(config: SandboxConfig | None = None, world: World | None = None) -> FastAPI:
    """The credit sandbox as an ASGI app (serve it with uvicorn); `world` replaces the seed world."""
    return create_sandbox_app(SANDBOX, config or SandboxConfig(), world)
