"""The credit deal system's pure logic through the sim backend: reads, refusals, writes."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.backend import ToolFailure
from adapters.credit.models import BorrowerAnswer
from adapters.credit.sim import SimBackend
from adapters.credit.tools import CREDIT_TOOLS, CREDIT_TOOLS_BY_NAME
from adapters.credit.world import World
from adapters.toolbox import Toolbox
from envs.credit.expert.build import Hand, package, quarter
from envs.credit.expert.cases_a import BASE_F
from envs.credit.worldgen import TODAY
from schemas.tools import ToolCall, ToolOutcome


def _box(**hand: Any) -> Toolbox:
    pkg = package(Hand(**hand), "PKG-T1")
    return Toolbox(CREDIT_TOOLS, SimBackend(World(today=TODAY, packages={"PKG-T1": pkg})))


def _call(box: Toolbox, name: str, **arguments: Any) -> Any:
    return box.call(ToolCall(call_id=f"c-{name}", name=name, arguments=arguments))


def _record(box: Toolbox, decision: str = "approve", conditions: list[dict[str, Any]] | None = None) -> Any:
    return _call(box, "record_recommendation", package_id="PKG-T1", decision=decision, figures=BASE_F.model_dump(mode="json"),
                 conditions=conditions or [], memo="Adjusted EBITDA 11.0m, leverage 4.00x, headroom 20.0%.")  # fmt: skip


def test_every_tool_renders_a_strict_openai_schema_and_an_mcp_definition() -> None:
    for spec in CREDIT_TOOLS:
        assert spec.openai_tool()["function"]["strict"] is True
        assert spec.mcp_tool()["name"] == spec.name
    assert set(CREDIT_TOOLS_BY_NAME) >= {
        "get_package",
        "record_recommendation",
        "request_information",
        "escalate_to_committee",
    }


def test_an_unknown_period_is_refused_with_the_periods_the_package_has() -> None:
    result = _call(_box(), "get_financial_statements", package_id="PKG-T1", period="FY1999")
    assert result.outcome is ToolOutcome.FAILED and result.error.details["code"] == "unknown_period"
    assert "2025Q1" in result.error.message


def test_an_unknown_package_is_refused() -> None:
    result = _call(_box(), "get_package", package_id="PKG-NOPE")
    assert result.error is not None and result.error.details["code"] == "unknown_package"


def test_a_recommendation_closes_the_package_and_a_second_decision_is_refused() -> None:
    box = _box()
    assert _record(box).outcome is ToolOutcome.OK
    again = _call(box, "escalate_to_committee", package_id="PKG-T1", reasons=["other"], recommended_decision="approve",
                  figures=BASE_F.model_dump(mode="json"), memo="A second opinion from the committee, please.")  # fmt: skip
    assert again.error is not None and again.error.details["code"] == "package_closed"
    assert _call(box, "get_package", package_id="PKG-T1").result["status"] == "recommended"


def test_an_approval_with_conditions_needs_a_condition_and_a_plain_approval_refuses_one() -> None:
    box = _box()
    assert _record(box, "approve_with_conditions").error.details["code"] == "conditions_required"
    cond = [{"kind": "more_equity", "detail": "Sponsor equity of at least 55%", "value": 55.0}]
    assert _record(box, "approve", cond).error.details["code"] == "conditions_not_allowed"


def test_a_requested_quarter_joins_the_package_and_the_same_item_is_not_asked_twice() -> None:
    answer = BorrowerAnswer(
        item="missing_quarter", available=True, text="attached", period=quarter(Hand(), 2)
    )
    box = _box(drop_quarter=2, answers=(answer,))
    labels = [p["label"] for p in _call(box, "get_package", package_id="PKG-T1").result["periods"]]
    assert "2024Q4" not in labels
    sent = _call(box, "request_information", package_id="PKG-T1", items=["missing_quarter", "customer_contracts"],
                 message="Please send the missing quarter and the customer contracts.")  # fmt: skip
    assert sent.result["delivered_periods"] == ["2024Q4"] and sent.result["outstanding"] == []
    assert (
        _call(box, "get_financial_statements", package_id="PKG-T1", period="2024Q4").outcome is ToolOutcome.OK
    )
    again = _call(
        box,
        "request_information",
        package_id="PKG-T1",
        items=["missing_quarter"],
        message="The quarter again please.",
    )
    assert again.error is not None and again.error.details["code"] == "already_requested"


def test_an_item_the_borrower_cannot_supply_yet_is_outstanding() -> None:
    answer = BorrowerAnswer(item="restatement_reconciliation", available=False, text="to follow")
    box = _box(answers=(answer,))
    sent = _call(box, "request_information", package_id="PKG-T1", items=["restatement_reconciliation"],
                 message="Please reconcile the restated quarter.")  # fmt: skip
    assert sent.result["outstanding"] == ["restatement_reconciliation"]


def test_the_sim_world_survives_a_snapshot_round_trip_and_ids_come_from_counters() -> None:
    box = _box()
    _record(box)
    backend = box.backend
    assert isinstance(backend, SimBackend)
    state = backend.snapshot()
    assert list(state["recommendations"]) == ["REC-1"]
    restored = SimBackend.from_doc(state)
    assert restored.snapshot() == state


def test_a_tool_the_domain_lacks_is_a_typed_failure() -> None:
    backend = SimBackend(World(today=TODAY))
    with pytest.raises(ToolFailure):
        backend.invoke("submit_appeal", BASE_F)


def test_the_fund_policy_states_its_rules_from_its_thresholds() -> None:
    from adapters.credit.models import FundPolicy

    pkg = package(Hand(), "PKG-T1")
    strict = World(today=TODAY, policy=FundPolicy(escalate_total_leverage=5.5), packages={"PKG-T1": pkg})
    rules = _call(Toolbox(CREDIT_TOOLS, SimBackend(strict)), "get_fund_policy").result["rules"]
    assert any("above 5.5x (leverage_above_policy)" in rule for rule in rules)
    assert rules[0].startswith("Before any decision, request information")
