"""An expert case of the credit desk: a hand package, the hand figures and decision, gold
trajectories and wrong moves.

Each case says which rule of `shared/domains/credit.md` it exercises, the figures an analyst
computes with a pencil, every decision class fund policy allows (one gold trajectory each) and at
least one plausible wrong move with why it is wrong. `ExpertCase.task()` turns it into a `Task`
scored by `credit.v1` like any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from adapters.credit.models import CreditPackage, FundPolicy
from adapters.credit.records import CovenantHeadroom, DecisionClass, Figures, InformationItem
from adapters.credit.tools import ESCALATE, RECORD, REQUEST
from adapters.credit.world import World
from envs.credit.assess import Assessment
from envs.credit.domain import DOMAIN
from envs.credit.flags import FLAGS_HOLD, agrees
from envs.credit.memo import memo, request_message
from envs.credit.specs import outcome_spec
from envs.credit.tasks import VERIFIER, work_item
from envs.credit.worldgen import TODAY
from schemas.tasks import Provenance, Task, VerifierSpec
from schemas.tools import ToolCall

GENERATOR = "credit.expert.v1"


def figures(
    adj: float, tl: float, sl: float, ic: float, fccr: float, dscr: float, liq: float, **headroom: float
) -> Figures:
    """Hand figures; `headroom` by covenant metric."""
    return Figures(
        adjusted_ebitda=adj,
        total_leverage=tl,
        senior_leverage=sl,
        interest_coverage=ic,
        fixed_charge_coverage=fccr,
        dscr=dscr,
        liquidity=liq,
        covenant_headroom=tuple(CovenantHeadroom(metric=m, headroom_pct=v) for m, v in headroom.items()),
    )


@dataclass(frozen=True)
class Move:
    """A named, explained trajectory: a gold resolution or a wrong move."""

    name: str
    why: str
    calls: tuple[ToolCall, ...]

    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The calls (with stable ids)."""
        return self.calls


@dataclass(frozen=True)
class Decision:
    """What a trajectory decides: its class, figures, conditions and escalation reasons."""

    klass: DecisionClass
    figures: Figures | None = None
    conditions: tuple[dict[str, Any], ...] = ()
    reasons: tuple[str, ...] = ()
    memo: str | None = None


def reads(pkg: CreditPackage) -> list[tuple[str, dict[str, Any]]]:
    """Every read an analyst makes of the package."""
    pid = pkg.package_id
    out: list[tuple[str, dict[str, Any]]] = [
        ("get_package", {"package_id": pid}),
        ("get_fund_policy", {}),
        ("get_term_sheet", {"package_id": pid}),
        ("get_existing_debt", {"package_id": pid}),
        ("get_ebitda_bridge", {"package_id": pid}),
    ]
    return out + [("get_financial_statements", {"package_id": pid, "period": p.label}) for p in pkg.periods]


def move(
    name: str,
    why: str,
    pkg: CreditPackage,
    decision: Decision,
    *,
    request: tuple[InformationItem, ...] = (),
    delivered: tuple[str, ...] = (),
    skip_reads: bool = False,
) -> Move:
    """A trajectory: the reads, the request (and the delivered periods read), then the decision."""
    steps = [] if skip_reads else reads(pkg)
    if request:
        steps.append(
            (
                REQUEST,
                {
                    "package_id": pkg.package_id,
                    "items": list(request),
                    "message": request_message(pkg.package_id, request),
                },
            )
        )
        steps += [
            ("get_financial_statements", {"package_id": pkg.package_id, "period": label})
            for label in delivered
        ]
    f = decision.figures
    if decision.klass == "escalate" and f is not None:
        why = ", ".join(r.replace("_", " ") for r in decision.reasons)
        text = decision.memo or memo(
            pkg, f, "escalate to investment committee", f"Reserved to the committee. Reasons: {why}."
        )
        steps.append(
            (
                ESCALATE,
                {
                    "package_id": pkg.package_id,
                    "reasons": list(decision.reasons),
                    "recommended_decision": "approve_with_conditions",
                    "figures": f.model_dump(mode="json"),
                    "memo": text,
                },
            )
        )
    elif decision.klass != "request_information" and f is not None:
        text = decision.memo or memo(pkg, f, decision.klass, "See the figures and conditions.")
        steps.append(
            (
                RECORD,
                {
                    "package_id": pkg.package_id,
                    "decision": decision.klass,
                    "figures": f.model_dump(mode="json"),
                    "conditions": list(decision.conditions),
                    "memo": text,
                },
            )
        )
    calls = tuple(
        ToolCall(call_id=f"{name}-{n}", name=tool, arguments=args) for n, (tool, args) in enumerate(steps, 1)
    )
    return Move(name=name, why=why, calls=calls)


@dataclass(frozen=True)
class ExpertCase:
    """One hand-written credit case."""

    id: str
    title: str
    family: tuple[str, ...]
    rule: str
    """The rule of credit.md the case exercises, in its words."""
    package: CreditPackage
    right: Assessment
    """The hand answer: acceptable classes, figures, conditions, max amount, reasons, what to ask first."""
    golds: tuple[Move, ...]
    wrong_moves: tuple[Move, ...]
    policy: FundPolicy = field(default_factory=FundPolicy)
    today: date = TODAY
    """The decision date."""
    source: str = ""
    """The published rule or stated market practice the case rests on."""

    def task(self) -> Task:
        """The case as a `credit.v1` task: the first gold as gold, the others as alternatives."""
        world = World(today=self.today, policy=self.policy, packages={self.package.package_id: self.package})
        classes = self.right.classes
        must_escalate = True if classes == ("escalate",) else (None if "escalate" in classes else False)
        return Task(
            task_id=f"credit-expert-{self.id}",
            domain="credit",
            work_item=work_item(self.package, self.today.isoformat()),
            initial_world=world.snapshot(),
            tools=tuple(spec.name for spec in DOMAIN.tool_specs()),
            gold_solution=self.golds[0].tool_calls(),
            alternative_solutions=tuple(g.tool_calls() for g in self.golds[1:]),
            verifier=VerifierSpec(
                verifier=VERIFIER,
                outcome=outcome_spec(self.right, self.policy),
                must_escalate=must_escalate,
                params={"classes": list(classes), "ask_first": list(self.right.ask_first)},
            ),
            provenance=Provenance(kind="synthetic", generator=GENERATOR, distribution="expert"),
            tags=(
                f"expert:{self.id}",
                "dist:expert",
                *self.family,
                *((FLAGS_HOLD,) if agrees(self.package, self.policy, self.today, self.right) else ()),
            ),
        )
