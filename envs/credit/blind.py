"""Blind moves of the deal desk: what a desk can do from the package's flags alone.

A blind desk reads the whole package (so every statement the figures come from is read) but
underwrites on its flags (`envs.credit.flags`): add-backs as flagged, refinanced debt gone, no
sources and uses, no answer read. Each move is one decision made on those figures (approve,
approve with conditions, decline, escalate with the reasons the flags give), or the request the
flags call for and nothing after it. The blind battery (`envs.adversarial.blind`) runs every move
on every task, fits the best move per flag signature on one seed's tasks and scores it on
another's: a verifier that pays such a desk pays for the flags, not for reading the package.
Tasks whose flags lead where the whole package does are tagged `visible:flags-hold`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from adapters.credit.models import CreditPackage, FundPolicy
from adapters.credit.records import DecisionClass
from adapters.credit.tools import REQUEST
from adapters.credit.world import World
from envs.adversarial.blind import BlindKit
from envs.contract import Trajectory
from envs.credit.assess import ask_first
from envs.credit.desk import DONE, Desk, Script
from envs.credit.flags import flagged, on_flags
from envs.credit.memo import request_message
from envs.credit.solver import decision_call, read_package
from envs.rollout.policy import PlanPolicy
from envs.script import ScriptPlan
from schemas.tasks import Task, WorkItem

DECISIONS: tuple[DecisionClass, ...] = ("approve", "approve_with_conditions", "decline", "escalate")
MOVES: tuple[str, ...] = ("nothing", "flags", "request", *DECISIONS)
"""Every blind move: nothing, the flags' own class, the flags' request, each decision on the flags."""


def signature(package: CreditPackage, policy: FundPolicy, today: date) -> tuple[str, ...]:
    """What the flags show, from the most specific to the coarsest (the flags' class, then nothing)."""
    asks = ",".join(ask_first(flagged(package), policy, today))
    a = on_flags(package, policy)
    if a is None:
        return (f"no-ttm|{asks}", "no-ttm", "")
    conditions = ",".join(a.conditions)
    reasons = ",".join(a.escalation_reasons)
    return (f"{a.classes[0]}|{conditions}|{reasons}|{asks}", f"{a.classes[0]}|{asks}", a.classes[0], "")


def _move(desk: Desk, package: CreditPackage, policy: FundPolicy, today: date, move: str) -> Script:
    if move == "nothing":
        return
    if move == "request":
        items = ask_first(flagged(package), policy, today) or ("addback_support",)
        yield desk.call(
            REQUEST,
            package_id=package.package_id,
            items=list(items),
            message=request_message(package.package_id, items),
        )
        return
    a = on_flags(package, policy)
    if a is None:
        return
    klass: DecisionClass = a.classes[0] if move == "flags" else move  # type: ignore[assignment]
    if klass == "request_information":
        return
    yield decision_call(desk, flagged(package), policy, a, klass)


def blind_script(item: WorkItem, choose: Mapping[str, str] | str) -> Script:
    """Read the package, then make the move `choose` names (or the fitted table's move for the
    package's flag signature)."""
    desk = Desk()
    found = yield from read_package(desk, str(item.payload["package_id"]))
    if found is None:
        return
    package, policy = found
    today = date.fromisoformat(str(item.payload["worked_on"]))
    if isinstance(choose, str):
        move = choose
    else:
        move = next((choose[s] for s in signature(package, policy, today) if s in choose), "nothing")
    yield from _move(desk, package, policy, today, move)


def move_policy(name: str) -> PlanPolicy:
    """The blind desk that makes move `name` on every package."""
    return PlanPolicy(f"blind:{name}", ScriptPlan(blind_script, DONE, (name,)))


def fitted_policy(table: Mapping[str, str]) -> PlanPolicy:
    """The learned blind desk for a flag signature → move table."""
    return PlanPolicy("blind:learned", ScriptPlan(blind_script, DONE, (dict(table),)))


def task_signature(task: Task, trajectory: Trajectory) -> tuple[str, ...]:
    """The flag signature of the task's package (what every blind desk's reads returned)."""
    world = World.model_validate(task.initial_world)
    package = world.package(str(task.work_item.payload["package_id"]))
    return signature(package, world.policy, date.fromisoformat(str(task.work_item.payload["worked_on"])))


BLIND = BlindKit(
    moves={name: move_policy(name) for name in MOVES},
    signature=task_signature,
    learned=fitted_policy,
    fixed=(move_policy("flags"),),
)
"""The deal desk's blind battery."""
