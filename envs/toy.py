"""A tiny refund-desk domain that exercises the whole contract without any real domain logic.

Used by the tests of `envs` and as the worked example in docs/envs.md: a ticket asks for a refund;
refunds up to the desk's limit are issued and the ticket closed, larger ones go to a supervisor.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from adapters.backend import ToolFailure
from adapters.spec import ToolSpec
from engine.domain import LiveClient, ToolDomain
from engine.rules import DomainRules, EscalationFields
from envs.contract import Action, Finish, Trajectory, Turn
from envs.domain import DomainDescriptor, DomainWorld, Reference
from envs.rollout.policy import NOOP, PlanPolicy
from envs.verifiers.standard import StandardVerifier
from schemas.tasks import CallConstraint, Provenance, Task, VerifierSpec, WorkItem
from schemas.tools import SideEffect, ToolCall, ToolError
from schemas.verdicts import CheckResult


class TicketArgs(BaseModel):
    ticket_id: str = Field(description="Ticket id, e.g. T-0001.")


class RefundArgs(TicketArgs):
    amount: Decimal = Field(description="Amount to refund, in dollars.", gt=0)


class CloseArgs(TicketArgs):
    resolution: Literal["refunded", "rejected"] = Field(description="How the ticket was resolved.")


class EscalateArgs(TicketArgs):
    reason: str = Field(description="Why a human must decide.")
    queue: str = Field(default="supervisor", description="Human work queue.")


class Ticket(BaseModel):
    ticket_id: str
    status: str
    amount: Decimal
    refunded: Decimal


SPECS: tuple[ToolSpec[Any, Any], ...] = (
    ToolSpec("get_ticket", "Read a ticket.", TicketArgs, Ticket, SideEffect.READ),
    ToolSpec("issue_refund", "Refund money on a ticket.", RefundArgs, Ticket, SideEffect.IRREVERSIBLE),
    ToolSpec("close_ticket", "Close a ticket.", CloseArgs, Ticket, SideEffect.WRITE),
    ToolSpec("escalate", "Hand the ticket to a human.", EscalateArgs, Ticket, SideEffect.WRITE),
)


class SimToyBackend:
    """In-memory refund desk; `seed` is unused because the toy world has no randomness."""

    def __init__(self, world: Mapping[str, Any]) -> None:
        self._world: dict[str, Any] = copy.deepcopy(dict(world))

    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy(self._world)

    def restore(self, state: dict[str, Any]) -> None:
        self._world = copy.deepcopy(state)

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        assert isinstance(args, TicketArgs)
        ticket = self._world["tickets"].get(args.ticket_id)
        if ticket is None:
            raise ToolFailure(ToolError(kind="domain", message=f"no ticket {args.ticket_id}"))
        if tool != "get_ticket" and ticket["status"] != "open":
            raise ToolFailure(
                ToolError(kind="domain", message=f"ticket {args.ticket_id} is {ticket['status']}")
            )
        if isinstance(args, RefundArgs):
            ticket["refunded"] = str(Decimal(ticket["refunded"]) + args.amount)
        elif isinstance(args, CloseArgs):
            ticket["status"] = f"closed:{args.resolution}"
        elif isinstance(args, EscalateArgs):
            ticket["status"] = "escalated"
            self._world["escalations"].append({"ticket_id": args.ticket_id, "queue": args.queue})
        return Ticket(ticket_id=args.ticket_id, **{k: ticket[k] for k in ("status", "amount", "refunded")})


def _no_live(base_url: str, timeout_s: float) -> LiveClient:
    raise NotImplementedError("the toy domain has no live system")


TOOLS = ToolDomain(
    "toy",
    SPECS,
    DomainRules(
        "escalate", lambda args: EscalationFields(str(args.get("reason", "")), queue=args.get("queue"))
    ),
    _no_live,
    Ticket,
)


class ToyDomain(DomainWorld):
    """The refund desk as an `envs` domain."""

    tools = TOOLS

    def make_backend(self, world: Mapping[str, Any], *, seed: int) -> SimToyBackend:
        return SimToyBackend(world)

    def outcome_view(self, world: Mapping[str, Any]) -> dict[str, Any]:
        # Every field of the toy world is a business fact.
        return dict(world)

    def outcome_facts(
        self, initial: Mapping[str, Any], final: Mapping[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        tickets = [{"ticket_id": tid, **t} for tid, t in final.get("tickets", {}).items()]
        escalations = list(final.get("escalations", []))
        return {"tickets": tickets, "escalations": escalations}


def read_before_write(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """Toy process rule: look at the ticket before touching money."""
    names = [turn.call.name for turn in trajectory.turns]
    writes = [i for i, n in enumerate(names) if n != "get_ticket"]
    ok = not writes or "get_ticket" in names[: writes[0]]
    yield CheckResult(
        name="process.toy.read_before_write",
        kind="process",
        passed=ok,
        explanation="read the ticket before acting" if ok else "acted before reading the ticket",
    )


def solve(ticket_id: str, amount: Decimal, limit: Decimal) -> tuple[ToolCall, ...]:
    """The desk's rule as calls: refund and close up to the limit, escalate above it."""
    read = ToolCall(call_id="c1", name="get_ticket", arguments={"ticket_id": ticket_id})
    if amount > limit:
        reason = f"refund {amount} is above the {limit} limit"
        return (
            read,
            ToolCall(call_id="c2", name="escalate", arguments={"ticket_id": ticket_id, "reason": reason}),
        )
    return (
        read,
        ToolCall(
            call_id="c2", name="issue_refund", arguments={"ticket_id": ticket_id, "amount": str(amount)}
        ),
        ToolCall(
            call_id="c3", name="close_ticket", arguments={"ticket_id": ticket_id, "resolution": "refunded"}
        ),
    )


def reference_plan(work_item: WorkItem, turns: tuple[Turn, ...]) -> Action:
    """The toy specialist: read the ticket, then follow the desk's rule; stop when it is settled."""
    tid = work_item.item_id
    if not turns:
        return ToolCall(call_id="c1", name="get_ticket", arguments={"ticket_id": tid})
    ticket = turns[0].result.result or {}
    if ticket.get("status") != "open" or turns[-1].call.name == "close_ticket":
        return Finish(message="settled")
    plan = solve(tid, Decimal(str(ticket["amount"])), Decimal(str(work_item.payload["refund_limit"])))
    return plan[len(turns)] if len(turns) < len(plan) else Finish(message="settled")


def make_tasks(n: int, *, seed: int = 0, limit: Decimal = Decimal("100")) -> list[Task]:
    """`n` toy tasks, identical for the same seed; about a third need escalation."""
    rng = random.Random(seed)
    tasks = []
    for i in range(n):
        tid = f"T-{i:04d}"
        amount = Decimal(rng.randrange(500, 20000)) / 100
        escalate = amount > limit
        ticket = {"status": "open", "amount": str(amount), "refunded": "0"}
        tasks.append(
            Task(
                task_id=f"toy-{seed}-{i:04d}",
                domain="toy",
                work_item=WorkItem(
                    domain="toy",
                    kind="refund",
                    item_id=tid,
                    instructions="Resolve the refund request.",
                    payload={"refund_limit": str(limit)},
                ),
                initial_world={"tickets": {tid: ticket}, "escalations": []},
                tools=tuple(spec.name for spec in SPECS),
                gold_solution=solve(tid, amount, limit),
                verifier=VerifierSpec(
                    verifier="toy.v1",
                    outcome_paths=(f"tickets.{tid}.status", f"tickets.{tid}.refunded", "escalations"),
                    required_calls=(CallConstraint(tool="get_ticket", arguments={"ticket_id": tid}),),
                    forbidden_calls=(CallConstraint(tool="issue_refund", reason="above the limit"),)
                    if escalate
                    else (),
                    must_escalate=escalate,
                ),
                provenance=Provenance(kind="synthetic", generator="toy.v1", seed=seed, distribution="base"),
                tags=("kind:escalate" if escalate else "kind:refund",),
            )
        )
    return tasks


VERIFIER = StandardVerifier(name="toy.v1", domain="toy", rules=(read_before_write,))
DOMAIN = DomainDescriptor(
    world=ToyDomain(),
    task_sets={"toy": (lambda seed: make_tasks(24, seed=seed), "24 refund-desk tickets (tests, docs)")},
    policies={
        "reference": (PlanPolicy("reference", reference_plan), "reads, then follows the rule"),
        "noop": (NOOP, "does nothing"),
    },
    verifiers=(VERIFIER,),
    reference=Reference(reference_plan, "toy-reference"),
)
