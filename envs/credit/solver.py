"""The reference analyst: reads the whole package, asks first what policy says to ask, computes the
figures, and records the decision fund policy gives (or escalates), with conditions and a memo.

`analyst(item, prefer=...)` takes another acceptable class where policy allows one; that is how
the task generator writes a task's alternative gold trajectories.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from adapters.credit.models import (
    Borrower,
    CreditPackage,
    EbitdaBridge,
    ExistingDebt,
    FinancialPeriod,
    FundPolicy,
    SourcesAndUses,
    Sponsor,
    TermSheet,
)
from adapters.credit.records import DecisionClass
from adapters.credit.tools import ESCALATE, RECORD, REQUEST
from envs.contract import Action, Turn
from envs.credit.assess import Assessment, ask_first, decide
from envs.credit.desk import Desk, Script, next_action
from envs.credit.memo import condition, memo, request_message
from envs.rollout.policy import PlanPolicy
from schemas.tasks import WorkItem

WHY: dict[str, str] = {
    "approve": "Every ratio is within fund policy with comfortable covenant headroom.",
    "approve_with_conditions": "Within policy once the conditions below hold.",
    "decline": "Outside what fund policy allows.",
    "escalate": "Fund policy reserves this to the investment committee.",
}


def read_package(desk: Desk, package_id: str) -> Script:
    """Every read of the package; (package as read, policy), or None when a read failed."""
    pkg = yield from desk.read("get_package", package_id=package_id)
    policy = yield from desk.read("get_fund_policy")
    term = yield from desk.read("get_term_sheet", package_id=package_id)
    debt = yield from desk.read("get_existing_debt", package_id=package_id)
    bridge = yield from desk.read("get_ebitda_bridge", package_id=package_id)
    if not (pkg and policy and term and debt and bridge):
        return None
    periods = []
    for summary in pkg["periods"]:
        found = yield from desk.read(
            "get_financial_statements", package_id=package_id, period=summary["label"]
        )
        if found is None:
            return None
        periods.append(FinancialPeriod.model_validate(found["period"]))
    package = CreditPackage(
        package_id=package_id,
        received=date.fromisoformat(pkg["received"]),
        borrower=Borrower.model_validate(pkg["borrower"]),
        sponsor=Sponsor.model_validate(pkg["sponsor"]),
        periods=tuple(periods),
        bridge=EbitdaBridge.model_validate(bridge["bridge"]),
        term_sheet=TermSheet.model_validate(term["term_sheet"]),
        existing_debt=tuple(ExistingDebt.model_validate(d) for d in debt["debts"]),
        fx_to_facility=pkg["fx_to_facility"],
        sources_and_uses=_table(debt),
    )
    return package, FundPolicy.model_validate(policy["policy"])


def _table(debt: dict[str, Any]) -> SourcesAndUses | None:
    found = debt.get("sources_and_uses")
    return SourcesAndUses.model_validate(found) if found else None


def analyst(item: WorkItem, prefer: DecisionClass | None = None) -> Script:
    """The reference analyst's script for one package."""
    desk = Desk()
    package_id = str(item.payload["package_id"])
    today = date.fromisoformat(str(item.payload["worked_on"]))
    found = yield from read_package(desk, package_id)
    if found is None:
        return None
    package, policy = found
    items = ask_first(package, policy, today)
    if items:
        answer = yield from desk.read(
            REQUEST, package_id=package_id, items=list(items), message=request_message(package_id, items)
        )
        if answer is None or answer["outstanding"]:
            return "request_information"
        delivered = []
        for label in answer["delivered_periods"]:
            period = yield from desk.read("get_financial_statements", package_id=package_id, period=label)
            if period is None:
                return None
            delivered.append(FinancialPeriod.model_validate(period["period"]))
        # Answers change the file: the overview (borrower and sponsor facts), the debt table and
        # the bridge are read again after them.
        pkg = yield from desk.read("get_package", package_id=package_id)
        debt = yield from desk.read("get_existing_debt", package_id=package_id)
        bridge = yield from desk.read("get_ebitda_bridge", package_id=package_id)
        if pkg is None or debt is None or bridge is None:
            return None
        # A delivered period joins the file; a restated one replaces the period of its label.
        fresh = {p.label for p in delivered}
        package = package.model_copy(
            update={
                "periods": (*(p for p in package.periods if p.label not in fresh), *delivered),
                "sources_and_uses": _table(debt),
                "existing_debt": tuple(ExistingDebt.model_validate(d) for d in debt["debts"]),
                "bridge": EbitdaBridge.model_validate(bridge["bridge"]),
                "borrower": Borrower.model_validate(pkg["borrower"]),
                "sponsor": Sponsor.model_validate(pkg["sponsor"]),
            }
        )
    assessment = decide(package, policy, items)
    klass = prefer if prefer is not None and prefer in assessment.classes else assessment.classes[0]
    yield decision_call(desk, package, policy, assessment, klass)
    return klass


def decision_call(
    desk: Desk, package: CreditPackage, policy: FundPolicy, a: Assessment, klass: DecisionClass
) -> Any:
    """The recording or escalating call for `klass`."""
    f = a.figures
    assert f is not None  # decide() always computes the figures
    figures = f.model_dump(mode="json")
    if klass == "escalate":
        recommended = (
            "decline"
            if {"non_positive_ebitda", "addback_dependent_earnings"} & set(a.escalation_reasons)
            else "approve_with_conditions"
        )
        reasons = ", ".join(r.replace("_", " ") for r in a.escalation_reasons)
        return desk.call(
            ESCALATE,
            package_id=package.package_id,
            reasons=list(a.escalation_reasons),
            recommended_decision=recommended,
            figures=figures,
            memo=memo(
                package, f, "escalate to investment committee", f"{WHY['escalate']} Reasons: {reasons}."
            ),
        )
    conditions = (
        [condition(k, package, f, policy, a.max_amount) for k in a.conditions]
        if klass == "approve_with_conditions"
        else []
    )
    why = WHY[klass] + "".join(f" Condition: {c['detail']}." for c in conditions)
    return desk.call(
        RECORD,
        package_id=package.package_id,
        decision=klass,
        figures=figures,
        conditions=conditions,
        memo=memo(package, f, klass, why),
    )


def reference_plan(item: WorkItem, turns: tuple[Turn, ...]) -> Action:
    """The reference analyst as a stateless policy."""
    return next_action(analyst(item), turns)


REFERENCE = PlanPolicy("reference", reference_plan)
"""The reference analyst as a policy."""
