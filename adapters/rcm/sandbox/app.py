"""The RCM sandbox: payer, clearinghouse and practice-management endpoints over one world
(`adapters.sandbox` serves them), answering X12 835 for remittances; its own admin routes set payer
rules, publish bulletins and change the practice at runtime."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Response
from pydantic import BaseModel

from adapters.rcm.bulletins import publish_bulletin
from adapters.rcm.errors import DomainError
from adapters.rcm.fixtures import seed_world
from adapters.rcm.logic import apply
from adapters.rcm.models import PayerRules, Practice
from adapters.rcm.sandbox.config import SandboxConfig
from adapters.rcm.sandbox.store import SqlWorldStore
from adapters.rcm.wire import ROUTES, X12_MEDIA_TYPE
from adapters.rcm.world import World
from adapters.rcm.x12 import write_835
from adapters.sandbox import SandboxBase, SandboxDomain, SandboxState, create_sandbox_app
from adapters.sandbox.app import error_response, json_response
from adapters.sandbox.openapi import ADMIN_BODY, ADMIN_UNKNOWN


def _adjust(world: World, config: SandboxBase) -> World:
    assert isinstance(config, SandboxConfig)
    payers = dict(world.payers)
    for payer_id, rules in config.payer_rules.items():
        payers[payer_id] = world.payer(payer_id).model_copy(update={"rules": rules})
    practice = world.practice
    if config.write_off_approval_limit is not None:
        practice = practice.model_copy(update={"write_off_approval_limit": config.write_off_approval_limit})
    return world.model_copy(update={"payers": payers, "practice": practice})


def _remittances(state: SandboxState[World], world: World, args: Any, result: BaseModel) -> Response:
    remittances = world.remittances_for(args.claim_id)
    if not remittances:
        return Response(status_code=204)
    names = {p.payer_id: p.name for p in world.payers.values()}
    return Response(write_835(remittances, names, world.practice, world.today), media_type=X12_MEDIA_TYPE)


def _admin_routes(router: APIRouter, state: SandboxState[World]) -> None:
    @router.put("/payers/{payer_id}/rules", responses={**ADMIN_BODY, **ADMIN_UNKNOWN})
    async def set_rules(payer_id: str, rules: PayerRules) -> Response:
        world = state.store.world
        try:
            payer = world.payer(payer_id).model_copy(update={"rules": rules})
        except DomainError as refusal:
            return error_response(refusal.to_tool_error(404), 404)
        state.store.commit(world.model_copy(update={"payers": {**world.payers, payer_id: payer}}))
        return json_response(payer)

    @router.post("/bulletins/{bulletin_id}/publish", responses=ADMIN_UNKNOWN)
    async def publish(bulletin_id: str) -> Response:
        try:
            world = publish_bulletin(state.store.world, bulletin_id)
        except DomainError as refusal:
            return error_response(refusal.to_tool_error(404), 404)
        state.store.commit(world)
        return json_response(world.bulletins[bulletin_id])

    @router.put("/practice", responses=ADMIN_BODY)
    async def set_practice(practice: Practice) -> Practice:
        state.store.commit(state.store.world.model_copy(update={"practice": practice}))
        return practice


SANDBOX: SandboxDomain[World] = SandboxDomain(
    "Loopline RCM sandbox",
    ROUTES,
    SqlWorldStore,
    seed_world,
    apply,
    SandboxConfig,
    adjust=_adjust,
    send_document=_remittances,
    admin_routes=_admin_routes,
)


def create_app(config: SandboxConfig | None = None) -> FastAPI:
    """The RCM sandbox as an ASGI app (serve it with uvicorn)."""
    return create_sandbox_app(SANDBOX, config or SandboxConfig())
