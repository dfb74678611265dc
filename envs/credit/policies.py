"""Naive scripted baselines: one move for every package, whatever it holds.

Each reads the package the way the reference does, then does what a desk without judgment would:
approve on management's adjusted EBITDA, decline everything, escalate everything, or ask for
information on everything. Each should score far below the reference analyst.
"""

from __future__ import annotations

from adapters.credit.records import DecisionClass
from adapters.credit.tools import ESCALATE, RECORD, REQUEST
from envs.credit.assess import inputs_of
from envs.credit.desk import DONE, Desk, Script
from envs.credit.memo import memo, request_message
from envs.credit.ratios import IncompleteTtm, figures
from envs.credit.solver import read_package
from envs.rollout.policy import PlanPolicy
from envs.script import ScriptPlan
from schemas.tasks import WorkItem


def blind_script(item: WorkItem, move: DecisionClass) -> Script:
    """Read everything, then make `move` with figures on management's own adjusted EBITDA."""
    desk = Desk()
    package_id = str(item.payload["package_id"])
    found = yield from read_package(desk, package_id)
    if found is None:
        return
    package, policy = found
    if move == "request_information":
        yield desk.call(
            REQUEST,
            package_id=package_id,
            items=["addback_support"],
            message=request_message(package_id, ("addback_support",)),
        )
        return
    # Management's adjusted EBITDA: every add-back accepted, no cap.
    trusting = policy.model_copy(update={"addback_cap_pct": 1000.0})
    bridge = package.bridge.model_copy(
        update={
            "addbacks": tuple(
                a.model_copy(
                    update={
                        "supported": True,
                        "recurring": False,
                        "category": "non_recurring",
                        "description": "Adjustment",  # unread: no words or history count against it
                        "booked_in": (),
                        "support_amount": None,
                    }
                )
                for a in package.bridge.addbacks
            )
        }
    )
    try:
        f = figures(inputs_of(package.model_copy(update={"bridge": bridge}), trusting))
    except IncompleteTtm:
        return
    figs = f.model_dump(mode="json")
    if move == "escalate":
        yield desk.call(
            ESCALATE,
            package_id=package_id,
            reasons=["other"],
            recommended_decision="approve",
            figures=figs,
            memo=memo(package, f, "escalate", "Please review."),
        )
        return
    yield desk.call(
        RECORD,
        package_id=package_id,
        decision=move,
        figures=figs,
        conditions=[],
        memo=memo(package, f, move, "Blind call."),
    )


BASELINES: dict[str, tuple[PlanPolicy, str]] = {
    "approve_all": (
        PlanPolicy("approve_all", ScriptPlan(blind_script, DONE, ("approve",))),
        "approves every package on management's adjusted EBITDA",
    ),
    "decline_all": (
        PlanPolicy("decline_all", ScriptPlan(blind_script, DONE, ("decline",))),
        "declines every package",
    ),
    "escalate_all": (
        PlanPolicy("escalate_all", ScriptPlan(blind_script, DONE, ("escalate",))),
        "escalates every package to investment committee",
    ),
    "request_all": (
        PlanPolicy("request_all", ScriptPlan(blind_script, DONE, ("request_information",))),
        "asks the borrower for add-back support on every package",
    ),
}
"""The naive baselines by CLI name, with what each does."""
