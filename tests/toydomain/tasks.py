"""The parcel desk's task generator, verifier and reference plan."""

from __future__ import annotations

import random
from decimal import Decimal

from envs.contract import Action, Finish, Turn
from envs.verifiers.standard import StandardVerifier
from schemas.tasks import CallConstraint, Provenance, Task, VerifierSpec, WorkItem
from schemas.tools import ToolCall
from tests.toydomain.tools import ESCALATE, TOOLS
from tests.toydomain.world import Parcel, ParcelWorld

VERIFIER = StandardVerifier(name="parcels.v1", domain="parcels")


def plan(parcel: Parcel, limit: Decimal) -> tuple[ToolCall, ...]:
    """The desk's rule: reship a delayed parcel, refund a lost one up to the limit, else escalate."""
    pid = parcel.parcel_id
    read = ToolCall(call_id="c1", name="get_parcel", arguments={"parcel_id": pid})
    if parcel.status == "delayed":
        act = ToolCall(call_id="c2", name="reship_parcel", arguments={"parcel_id": pid})
    elif parcel.value <= limit:
        act = ToolCall(
            call_id="c2", name="refund_parcel", arguments={"parcel_id": pid, "amount": str(parcel.value)}
        )
    else:
        reason = f"a lost parcel worth {parcel.value} is over the {limit} limit"
        act = ToolCall(call_id="c2", name=ESCALATE, arguments={"parcel_id": pid, "reason": reason})
    return read, act


def reference_plan(work_item: WorkItem, turns: tuple[Turn, ...]) -> Action:
    """Read the parcel, then follow the desk's rule."""
    if not turns:
        return ToolCall(call_id="c1", name="get_parcel", arguments={"parcel_id": work_item.item_id})
    if len(turns) > 1:
        return Finish(message="settled")
    parcel = Parcel.model_validate(turns[0].result.result)
    return plan(parcel, Decimal(str(work_item.payload["refund_limit"])))[1]


def make_tasks(n: int, seed: int = 0) -> list[Task]:
    """`n` parcels that went wrong, identical for the same seed: delayed, lost under the limit, lost over it."""
    rng = random.Random(seed)
    tasks = []
    for i in range(n):
        pid = f"P-{i:04d}"
        # Every third parcel is delayed; the lost ones alternate under and over the limit.
        status = "delayed" if i % 3 == 0 else "lost"
        value = Decimal(rng.randrange(10, 100) if i % 3 == 1 else rng.randrange(101, 300))
        parcel = Parcel(parcel_id=pid, status=status, value=value)
        world = ParcelWorld(parcels={pid: parcel})
        gold = plan(parcel, world.refund_limit)
        kind = "escalate" if gold[1].name == ESCALATE else gold[1].name.removesuffix("_parcel")
        tasks.append(
            Task(
                task_id=f"parcels-{seed}-{i:04d}",
                domain="parcels",
                work_item=WorkItem(
                    domain="parcels",
                    kind="parcel",
                    item_id=pid,
                    instructions="Settle the parcel.",
                    payload={"refund_limit": str(world.refund_limit)},
                ),
                initial_world=world.snapshot(),
                tools=tuple(spec.name for spec in TOOLS),
                gold_solution=gold,
                verifier=VerifierSpec(
                    verifier=VERIFIER.name,
                    outcome_paths=(f"parcels.{pid}.status", f"parcels.{pid}.refunded", "escalations"),
                    required_calls=(CallConstraint(tool="get_parcel", arguments={"parcel_id": pid}),),
                    must_escalate=kind == "escalate",
                ),
                provenance=Provenance(
                    kind="synthetic", generator="parcels.v1", seed=seed, distribution="base"
                ),
                tags=(f"kind:{kind}",),
            )
        )
    return tasks
