"""The parcel desk's tools, how they travel over HTTP, its sim and live backends and its sandbox:
each built from the generic machinery (`adapters.world_sim`, `adapters.live`, `adapters.sandbox`)."""

from __future__ import annotations

from typing import Any

from adapters.live import HttpLiveBackend
from adapters.sandbox import SandboxDomain
from adapters.sandbox.admin import SandboxAdmin as AdminClient
from adapters.spec import ToolSpec
from adapters.wire import Endpoint, ToolRoutes
from adapters.world_sim import WorldSim
from adapters.world_store import WorldStore
from schemas.tools import SideEffect
from tests.toydomain.world import (
    LOGIC,
    EscalateArgs,
    Escalation,
    Parcel,
    ParcelArgs,
    ParcelWorld,
    RefundArgs,
    apply,
)

ESCALATE = "escalate_parcel"
TOOLS: tuple[ToolSpec[Any, Any], ...] = (
    ToolSpec("get_parcel", "Read a parcel.", ParcelArgs, Parcel, SideEffect.READ),
    ToolSpec("reship_parcel", "Reship a delayed parcel.", ParcelArgs, Parcel, SideEffect.WRITE),
    ToolSpec("refund_parcel", "Refund a lost parcel.", RefundArgs, Parcel, SideEffect.IRREVERSIBLE),
    ToolSpec(ESCALATE, "Hand the parcel to a supervisor.", EscalateArgs, Escalation, SideEffect.WRITE),
)
ROUTES = ToolRoutes(
    "parcel",
    {spec.name: spec for spec in TOOLS},
    {
        "get_parcel": Endpoint("GET", "/parcels/{parcel_id}"),
        "reship_parcel": Endpoint("POST", "/parcels/{parcel_id}/reshipments"),
        "refund_parcel": Endpoint("POST", "/parcels/{parcel_id}/refunds"),
        ESCALATE: Endpoint("POST", "/parcels/{parcel_id}/escalations"),
    },
)


class SimBackend(WorldSim[ParcelWorld]):
    def __init__(self, world: ParcelWorld) -> None:
        super().__init__(world, logic=LOGIC, from_snapshot=ParcelWorld.from_snapshot, domain_label="parcel")


class LiveBackend(HttpLiveBackend):
    routes = ROUTES


class SandboxAdmin(AdminClient[ParcelWorld]):
    world_type = ParcelWorld


def _store(url: str) -> WorldStore[ParcelWorld]:
    collections = ("parcels", "escalations")
    return WorldStore(
        url, name="parcels", world_type=ParcelWorld, collections=collections, meta=("refund_limit",)
    )


def seed_world() -> ParcelWorld:
    return ParcelWorld(parcels={"P-0001": Parcel(parcel_id="P-0001", status="lost", value=40)})


SANDBOX: SandboxDomain[ParcelWorld] = SandboxDomain(
    title="parcel desk sandbox",
    routes=ROUTES,
    store=_store,
    seed=seed_world,
    apply=apply,
)
