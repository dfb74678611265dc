"""Pure domain logic: (world, args) -> (result, new world); `apply` dispatches by tool name.

No I/O, no clock, no randomness: ids come from the world's counters and dates from `world.today`.
Refusals raise `DomainError` before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from adapters.credit import args as a
from adapters.credit import results as r
from adapters.credit.answers import answered
from adapters.credit.errors import DomainError
from adapters.credit.models import CreditPackage, FinancialPeriod
from adapters.credit.policy_text import policy_rules
from adapters.credit.records import IcEscalation, InformationRequest, Recommendation
from adapters.credit.world import World

Outcome = tuple[BaseModel, World]
Logic = Callable[[World, Any], Outcome]

OPEN = ("open", "information_requested")
"""Statuses in which the deal team may still act on a package."""


def get_package(world: World, args: a.GetPackageArgs) -> Outcome:
    """The package overview; the borrower's answers not yet asked for stay hidden."""
    p = world.package(args.package_id)
    periods = [
        r.PeriodSummary(
            label=x.label,
            kind=x.kind,
            start=x.start.isoformat(),
            end=x.end.isoformat(),
            months=x.months,
            restated=x.restated,
        )
        for x in sorted(p.periods, key=lambda x: (x.end, x.kind))
    ]
    result = r.PackageResult(
        package_id=p.package_id,
        received=p.received.isoformat(),
        borrower=p.borrower,
        sponsor=p.sponsor,
        periods=periods,
        fx_to_facility=dict(p.fx_to_facility),
        status=p.status,
        answers_received=list(p.received_answers),
    )
    return result, world


def get_financial_statements(world: World, args: a.GetFinancialStatementsArgs) -> Outcome:
    """One period, by label; an unknown label is refused with the labels the package has."""
    p = world.package(args.package_id)
    for period in p.periods:
        if period.label == args.period:
            return r.FinancialStatementsResult(package_id=p.package_id, period=period), world
    labels = ", ".join(x.label for x in p.periods)
    raise DomainError(
        "unknown_period", f"package {p.package_id} has no period {args.period!r}; it has: {labels}"
    )


def get_ebitda_bridge(world: World, args: a.GetEbitdaBridgeArgs) -> Outcome:
    """Management's TTM EBITDA bridge."""
    p = world.package(args.package_id)
    return r.EbitdaBridgeResult(package_id=p.package_id, bridge=p.bridge), world


def get_term_sheet(world: World, args: a.GetTermSheetArgs) -> Outcome:
    """The proposed facility and its covenants."""
    p = world.package(args.package_id)
    return r.TermSheetResult(package_id=p.package_id, term_sheet=p.term_sheet), world


def get_existing_debt(world: World, args: a.GetExistingDebtArgs) -> Outcome:
    """The borrower's existing debt."""
    p = world.package(args.package_id)
    result = r.ExistingDebtResult(
        package_id=p.package_id, debts=list(p.existing_debt), sources_and_uses=p.sources_and_uses
    )
    return result, world


def get_fund_policy(world: World, args: a.GetFundPolicyArgs) -> Outcome:
    """The fund's underwriting policy."""
    return r.FundPolicyResult(policy=world.policy, rules=policy_rules(world.policy)), world


def _open(world: World, package_id: str) -> CreditPackage:
    p = world.package(package_id)
    if p.status not in OPEN:
        raise DomainError(
            "package_closed",
            f"package {package_id} is already {p.status}; nothing more can be recorded on it",
        )
    return p


def _with(world: World, p: CreditPackage, **changes: Any) -> dict[str, CreditPackage]:
    return {**world.packages, p.package_id: p.model_copy(update=changes)}


def record_recommendation(world: World, args: a.RecordRecommendationArgs) -> Outcome:
    """Record the decision on an open package (conditions only with approve_with_conditions); closes it."""
    p = _open(world, args.package_id)
    if args.decision == "approve_with_conditions" and not args.conditions:
        raise DomainError("conditions_required", "approve_with_conditions needs at least one condition")
    if args.decision != "approve_with_conditions" and args.conditions:
        raise DomainError(
            "conditions_not_allowed",
            f"a decision of {args.decision} carries no conditions; use approve_with_conditions",
        )
    rec_id, counters = world.issue("recommendation")
    record = Recommendation(
        recommendation_id=rec_id,
        package_id=p.package_id,
        decision=args.decision,
        figures=args.figures,
        conditions=tuple(args.conditions),
        memo=args.memo,
        recorded_on=world.today,
    )
    new = world.model_copy(
        update={
            "packages": _with(world, p, status="recommended"),
            "recommendations": {**world.recommendations, rec_id: record},
            "counters": counters,
        }
    )
    return r.RecommendationResult(recommendation=record), new


def request_information(world: World, args: a.RequestInformationArgs) -> Outcome:
    """Ask the borrower for items not asked for before; delivered periods join the package."""
    p = _open(world, args.package_id)
    items = tuple(dict.fromkeys(args.items))
    asked = {i for req in world.requests.values() if req.package_id == p.package_id for i in req.items}
    repeated = [i for i in items if i in asked]
    if repeated:
        raise DomainError("already_requested", f"already requested from the borrower: {', '.join(repeated)}")
    answers: list[str] = []
    outstanding: list[str] = []
    delivered: list[FinancialPeriod] = []
    by_item = {answer.item: answer for answer in p.answers}
    changed = p
    for item in items:
        answer = by_item.get(item)
        if answer is None:
            answers.append(f"{item}: the borrower has nothing further to provide")
            continue
        state = "delivered" if answer.available else "to follow"
        if not answer.available:
            outstanding.append(item)
        answers.append(f"{item} ({state}): {answer.text}")
        if answer.available and answer.period is not None:
            delivered.append(answer.period)
        changed = answered(changed, answer)
    req_id, counters = world.issue("request")
    request = InformationRequest(
        request_id=req_id,
        package_id=p.package_id,
        items=items,
        message=args.message,
        requested_on=world.today,
    )
    package = _with(
        world,
        changed,
        status="information_requested",
        received_answers=(*p.received_answers, *answers),
    )
    new = world.model_copy(
        update={"packages": package, "requests": {**world.requests, req_id: request}, "counters": counters}
    )
    result = r.InformationRequestResult(
        request=request,
        answers=answers,
        delivered_periods=[x.label for x in delivered],
        outstanding=outstanding,
    )
    return result, new


def escalate_to_committee(world: World, args: a.EscalateToCommitteeArgs) -> Outcome:
    """Hand an open package to the investment committee; closes it."""
    p = _open(world, args.package_id)
    esc_id, counters = world.issue("escalation")
    record = IcEscalation(
        escalation_id=esc_id,
        package_id=p.package_id,
        reasons=tuple(dict.fromkeys(args.reasons)),
        recommended_decision=args.recommended_decision,
        figures=args.figures,
        memo=args.memo,
        escalated_on=world.today,
    )
    new = world.model_copy(
        update={
            "packages": _with(world, p, status="escalated"),
            "escalations": {**world.escalations, esc_id: record},
            "counters": counters,
        }
    )
    return r.EscalationResult(escalation=record), new


TOOL_LOGIC: dict[str, Logic] = {
    "get_package": get_package,
    "get_financial_statements": get_financial_statements,
    "get_ebitda_bridge": get_ebitda_bridge,
    "get_term_sheet": get_term_sheet,
    "get_existing_debt": get_existing_debt,
    "get_fund_policy": get_fund_policy,
    "record_recommendation": record_recommendation,
    "request_information": request_information,
    "escalate_to_committee": escalate_to_committee,
}


def apply(world: World, tool: str, arguments: BaseModel) -> Outcome:
    """Run one tool's logic; raises `DomainError` on a refusal and `KeyError` on an unknown tool."""
    return TOOL_LOGIC[tool](world, arguments)
