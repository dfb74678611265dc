"""The parcel desk's world, tool arguments and pure logic: a parcel that went wrong is reshipped
(delayed), refunded up to the desk's limit (lost) or handed to a supervisor (lost, worth more)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from adapters.refusal import DomainRefusal


class ParcelRefusal(DomainRefusal[str]):
    """The desk refuses: `unknown_parcel` (404), `not_open`, `over_limit`."""

    http_statuses = {"unknown_parcel": 404}


class Parcel(BaseModel):
    parcel_id: str
    status: Literal["delayed", "lost", "reshipped", "refunded", "escalated"]
    value: Decimal
    refunded: Decimal = Decimal("0")


class Escalation(BaseModel):
    escalation_id: str
    parcel_id: str
    reason: str


class ParcelWorld(BaseModel):
    parcels: dict[str, Parcel] = Field(default_factory=dict)
    escalations: dict[str, Escalation] = Field(default_factory=dict)
    refund_limit: Decimal = Decimal("100")

    def snapshot(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_snapshot(cls, state: dict[str, Any]) -> ParcelWorld:
        return cls.model_validate(state)


class ParcelArgs(BaseModel):
    parcel_id: str = Field(min_length=1, description="The parcel's id, e.g. P-0001.")


class RefundArgs(ParcelArgs):
    amount: Decimal = Field(gt=0, description="The amount to refund.")


class EscalateArgs(ParcelArgs):
    reason: str = Field(min_length=3, description="Why a supervisor must decide.")


Outcome = tuple[BaseModel, ParcelWorld]


def _parcel(world: ParcelWorld, parcel_id: str) -> Parcel:
    parcel = world.parcels.get(parcel_id)
    if parcel is None:
        raise ParcelRefusal("unknown_parcel", f"no parcel {parcel_id}")
    return parcel


def _open(world: ParcelWorld, parcel_id: str, *statuses: str) -> Parcel:
    parcel = _parcel(world, parcel_id)
    if parcel.status not in statuses:
        raise ParcelRefusal("not_open", f"parcel {parcel_id} is {parcel.status}")
    return parcel


def _with(world: ParcelWorld, parcel: Parcel) -> ParcelWorld:
    return world.model_copy(update={"parcels": {**world.parcels, parcel.parcel_id: parcel}})


def get_parcel(world: ParcelWorld, args: ParcelArgs) -> Outcome:
    return _parcel(world, args.parcel_id), world


def reship_parcel(world: ParcelWorld, args: ParcelArgs) -> Outcome:
    parcel = _open(world, args.parcel_id, "delayed").model_copy(update={"status": "reshipped"})
    return parcel, _with(world, parcel)


def refund_parcel(world: ParcelWorld, args: RefundArgs) -> Outcome:
    parcel = _open(world, args.parcel_id, "lost")
    if args.amount > min(parcel.value, world.refund_limit):
        raise ParcelRefusal("over_limit", f"a refund of {args.amount} is over the limit; escalate")
    parcel = parcel.model_copy(update={"status": "refunded", "refunded": args.amount})
    return parcel, _with(world, parcel)


def escalate_parcel(world: ParcelWorld, args: EscalateArgs) -> Outcome:
    parcel = _open(world, args.parcel_id, "delayed", "lost").model_copy(update={"status": "escalated"})
    record = Escalation(
        escalation_id=f"E-{len(world.escalations) + 1}", parcel_id=args.parcel_id, reason=args.reason
    )
    world = _with(world, parcel)
    return record, world.model_copy(
        update={"escalations": {**world.escalations, record.escalation_id: record}}
    )


LOGIC: dict[str, Callable[[ParcelWorld, Any], Outcome]] = {
    "get_parcel": get_parcel,
    "reship_parcel": reship_parcel,
    "refund_parcel": refund_parcel,
    "escalate_parcel": escalate_parcel,
}


def apply(world: ParcelWorld, tool: str, args: Any) -> Outcome:
    return LOGIC[tool](world, args)
