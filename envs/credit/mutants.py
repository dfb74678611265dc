"""Mutation operators of the deal desk: the mistakes analysts make in what they record.

Each alters the decision calls of a gold trajectory: a figure computed wrong, another decision, a
condition dropped or too generous, a recommendation where policy wants the committee (or the other
way round), an escalation reason missing, an information item not asked for;
`envs.adversarial` adds the generic ones (drop, duplicate, reorder).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from adapters.credit.tools import ESCALATE, RECORD, REQUEST
from envs.adversarial.operator import Calls, MutationContext, Operator, label
from envs.credit.facts import FIGURES

Found = Iterator[tuple[str, Calls]]
DECISIONS = ("approve", "approve_with_conditions", "decline")


def _with_args(calls: Calls, index: int, arguments: dict[str, Any]) -> Calls:
    changed = calls[index].model_copy(update={"arguments": arguments})
    return (*calls[:index], changed, *calls[index + 1 :])


def wrong_figure(ctx: MutationContext, calls: Calls) -> Found:
    """Each figure 10% off, each covenant headroom 8 points high."""
    for i, call in enumerate(calls):
        if call.name not in (RECORD, ESCALATE):
            continue
        for name in FIGURES:
            args = copy.deepcopy(call.arguments)
            value = args["figures"][name]
            args["figures"][name] = round(value * 1.1 + (0.5 if abs(value) < 1 else 0), 2)
            yield f"{label(i, call)}: {name} 10% off", _with_args(calls, i, args)
        for h, row in enumerate(call.arguments["figures"].get("covenant_headroom", [])):
            args = copy.deepcopy(call.arguments)
            args["figures"]["covenant_headroom"][h]["headroom_pct"] = round(row["headroom_pct"] + 8, 1)
            yield f"{label(i, call)}: {row['metric']} headroom 8 points high", _with_args(calls, i, args)


def wrong_decision(ctx: MutationContext, calls: Calls) -> Found:
    """Each other decision in place of the recorded one."""
    for i, call in enumerate(calls):
        if call.name != RECORD:
            continue
        for decision in DECISIONS:
            if decision == call.arguments["decision"]:
                continue
            args = {**copy.deepcopy(call.arguments), "decision": decision}
            if decision != "approve_with_conditions":
                args["conditions"] = []
            elif not args["conditions"]:
                args["conditions"] = [{"kind": "more_equity", "detail": "More sponsor equity", "value": 60.0}]
            yield f"{label(i, call)}: decision {decision}", _with_args(calls, i, args)


def condition_mistakes(ctx: MutationContext, calls: Calls) -> Found:
    """A condition dropped, a lower amount 20% too high."""
    for i, call in enumerate(calls):
        conditions = (call.arguments.get("conditions") or []) if call.name == RECORD else []
        for c, cond in enumerate(conditions):
            if len(conditions) > 1:
                args = copy.deepcopy(call.arguments)
                del args["conditions"][c]
                yield f"{label(i, call)}: dropped the {cond['kind']} condition", _with_args(calls, i, args)
            if cond["kind"] == "lower_amount" and cond.get("value"):
                args = copy.deepcopy(call.arguments)
                args["conditions"][c]["value"] = round(cond["value"] * 1.2, 0)
                yield f"{label(i, call)}: lower amount 20% too high", _with_args(calls, i, args)


def swap_route(ctx: MutationContext, calls: Calls) -> Found:
    """Escalate instead of recording (and the reverse), or an escalation reason dropped."""
    for i, call in enumerate(calls):
        args = call.arguments
        if call.name == RECORD:
            new = {
                "package_id": args["package_id"],
                "reasons": ["other"],
                "recommended_decision": args["decision"],
                "figures": args["figures"],
                "memo": args["memo"],
            }
            yield (
                f"{label(i, call)}: escalated instead",
                (*calls[:i], call.model_copy(update={"name": ESCALATE, "arguments": new}), *calls[i + 1 :]),
            )
        if call.name == ESCALATE:
            new = {
                "package_id": args["package_id"],
                "decision": "approve",
                "figures": args["figures"],
                "conditions": [],
                "memo": args["memo"],
            }
            yield (
                f"{label(i, call)}: recorded an approval instead",
                (*calls[:i], call.model_copy(update={"name": RECORD, "arguments": new}), *calls[i + 1 :]),
            )
            reasons = list(args["reasons"])
            for r, reason in enumerate(reasons):
                rest = reasons[:r] + reasons[r + 1 :] or ["other"]
                yield (
                    f"{label(i, call)}: without reason {reason}",
                    _with_args(calls, i, {**args, "reasons": rest}),
                )


def request_mistakes(ctx: MutationContext, calls: Calls) -> Found:
    """An information item left out of the request."""
    for i, call in enumerate(calls):
        if call.name != REQUEST:
            continue
        items = list(call.arguments["items"])
        for n, item in enumerate(items):
            rest = items[:n] + items[n + 1 :] or ["customer_contracts"]
            yield (
                f"{label(i, call)}: did not ask for {item}",
                _with_args(calls, i, {**call.arguments, "items": rest}),
            )


OPERATORS = (
    Operator("wrong_figure", "a figure or a covenant headroom computed wrong", wrong_figure),
    Operator("wrong_decision", "another decision class recorded", wrong_decision),
    Operator("condition_mistakes", "a condition dropped or a lower amount too generous", condition_mistakes),
    Operator(
        "swap_route",
        "recommend where policy wants the committee, or the reverse; a reason missing",
        swap_route,
    ),
    Operator("request_mistakes", "an information item not asked for", request_mistakes),
)
"""The credit operators its descriptor adds to the generic ones."""
