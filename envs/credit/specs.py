"""The outcome spec of a credit task, from the policy's assessment.

Every deciding resolution checks the recorded figures (each within the policy's tolerance: a
percentage of the right figure for ratios and amounts, points for covenant headroom) and the
decision class; an approval with conditions must carry each condition policy requires (a lower
amount at most the amount that meets the target leverage); an escalation must name each reason.
Information policy says to ask for first must have been asked for, and no item the package gives no
cause to ask for.
"""

from __future__ import annotations

from typing import get_args

from adapters.credit.models import FundPolicy
from adapters.credit.records import DecisionClass, EscalationReason, Figures, InformationItem
from envs.credit.assess import Assessment
from envs.credit.facts import flat_figures
from schemas.tasks import Assertion, OutcomeSpec, Resolution

FLOOR = {"adjusted_ebitda": 1000.0, "liquidity": 1000.0}
"""Smallest tolerance per figure (amounts are stated to the thousand); ratios default to 0.01."""
REASONS: dict[str, str] = {
    "approve": "every ratio is within fund policy with comfortable headroom",
    "approve_with_conditions": "policy allows the facility once the conditions hold",
    "decline": "the package is outside what fund policy allows",
    "escalate": "fund policy reserves this package to the investment committee",
    "request_information": "policy says to get the information before any decision, and it is still to follow",
}


def figure_assertions(f: Figures, policy: FundPolicy) -> list[Assertion]:
    """One assertion per figure: the single decision's figure within tolerance."""
    out: list[Assertion] = []
    for name, want in flat_figures(f.model_dump(mode="json")).items():
        if name.startswith("headroom_"):
            tolerance = policy.headroom_tolerance_pts
            reason = f"the {name.removeprefix('headroom_').replace('_', ' ')} covenant headroom is what the memo must rest on"
        else:
            tolerance = max(abs(want) * policy.ratio_tolerance_pct / 100, FLOOR.get(name, 0.01))
            reason = f"{name.replace('_', ' ')} must be computed as credit.md defines it (TTM, pro forma, facility currency)"
        out.append(
            Assertion(
                name=f"figure.{name}",
                reason=reason,
                collection="decisions",
                where={},
                min_count=1,
                max_count=1,
                total_of=name,
                total=float(want),
                tolerance=tolerance,
            )
        )
    return out


def _resolution(klass: DecisionClass, a: Assessment, policy: FundPolicy) -> Resolution:
    if klass == "request_information":
        parts = [
            Assertion(
                name="no_decision",
                reason="nothing can be decided until the information arrives",
                collection="decisions",
                max_count=0,
                min_count=0,
            )
        ]
        return Resolution(name=klass, reason=REASONS[klass], assertions=tuple(parts))
    parts = [
        Assertion(
            name=f"class.{klass}",
            reason=REASONS[klass],
            collection="decisions",
            where={"class": klass},
            max_count=1,
        )
    ]
    assert a.figures is not None
    parts += figure_assertions(a.figures, policy)
    if klass == "approve_with_conditions":
        for kind in a.conditions:
            where: dict[str, object] = {"kind": kind}
            if kind == "lower_amount" and a.max_amount is not None:
                where["value"] = {"$lte": a.max_amount + 1000}
            parts.append(
                Assertion(
                    name=f"condition.{kind}",
                    reason=f"policy requires a {kind.replace('_', ' ')} condition",
                    collection="conditions",
                    where=where,
                )
            )
    else:
        parts.append(
            Assertion(
                name="no_conditions",
                reason="only an approval with conditions carries conditions",
                collection="conditions",
                min_count=0,
                max_count=0,
            )
        )
    if klass == "escalate":
        for wrong in get_args(EscalationReason):
            if wrong not in a.escalation_reasons:
                parts.append(
                    Assertion(
                        name=f"escalation.not_{wrong}",
                        reason=f"the committee must not be told of {wrong.replace('_', ' ')} that is not there",
                        collection="escalations",
                        where={"reasons": {"$contains": wrong}},
                        min_count=0,
                        max_count=0,
                    )
                )
        for reason in a.escalation_reasons:
            parts.append(
                Assertion(
                    name=f"escalation.{reason}",
                    reason=f"the committee must see the {reason.replace('_', ' ')}",
                    collection="escalations",
                    where={"reasons": {"$contains": reason}},
                )
            )
    return Resolution(name=klass, reason=REASONS[klass], assertions=tuple(parts))


def outcome_spec(a: Assessment, policy: FundPolicy) -> OutcomeSpec:
    """The spec: information asked for as policy says (and nothing it has no reason to ask for),
    and one acceptable resolution."""
    must: list[Assertion] = []
    # Each item can be asked for once (the deal system refuses a repeat), so the items bound the
    # requests: what policy says to ask first must be asked, and nothing without cause.
    for item in a.ask_first:
        must.append(
            Assertion(
                name=f"requested.{item}",
                reason=f"policy says to ask for the {item.replace('_', ' ')} first",
                collection="requests",
                where={"items": {"$contains": item}},
            )
        )
    for item in get_args(InformationItem):
        if item not in (*a.ask_first, *a.may_ask):
            must.append(
                Assertion(
                    name=f"no_request.{item}",
                    reason=f"nothing in the package gives cause to ask for the {item.replace('_', ' ')}",
                    collection="requests",
                    where={"items": {"$contains": item}},
                    min_count=0,
                    max_count=0,
                )
            )
    return OutcomeSpec(must=tuple(must), resolutions=tuple(_resolution(k, a, policy) for k in a.classes))
