"""Dated payer rules in the domain logic: each check that reads a payer's rules (appeal window,
retro-authorization window, documentation for auth, fee schedule) uses the version in effect on
the claim's date of service, and a pending bulletin's change is shown only once published."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from adapters.rcm import SimBackend, World
from adapters.rcm.args import GetPayerRulesArgs, RequestAuthorizationArgs, SubmitAppealArgs
from adapters.rcm.bulletins import publish_bulletin
from adapters.rcm.errors import DomainError
from adapters.rcm.ledger import underpaid
from adapters.rcm.logic import apply
from adapters.rcm.payers import RuleChange
from schemas.tools import ToolOutcome, ToolResult

Call = Callable[..., ToolResult]


def _with_change(world: World, payer_id: str, days_ago: int, **rules: object) -> World:
    """`world` where `payer_id` changed `rules` for services from `days_ago` days before today."""
    payer = world.payers[payer_id]
    change = RuleChange(
        effective_date=world.today - timedelta(days=days_ago), rules=payer.rules.model_copy(update=rules)
    )
    changed = payer.model_copy(update={"rule_changes": (*payer.rule_changes, change)})
    return world.model_copy(update={"payers": {**world.payers, payer_id: changed}})


def test_an_appeal_window_shortened_after_the_service_leaves_the_old_window_open(world: World) -> None:
    # CLM-1105: Medicare, service 150 days ago, notice 123 days ago, 120 + 5 days from the notice.
    appeal = SubmitAppealArgs(
        claim_id="CLM-1105", basis="medical_necessity", reason="records attached", attachment_document_ids=[]
    )
    later = _with_change(world, "MCR", 100, appeal_window_days=60)
    result, _ = apply(later, "submit_appeal", appeal)
    assert result.model_dump()["appeal"]["claim_id"] == "CLM-1105"
    earlier = _with_change(world, "MCR", 200, appeal_window_days=60)
    with pytest.raises(DomainError) as refused:
        apply(earlier, "submit_appeal", appeal)
    assert refused.value.code == "appeal_window_closed"


def test_the_fee_schedule_in_effect_on_the_service_decides_an_underpayment(world: World) -> None:
    claim = world.claims["CLM-1102"]  # 99214 allowed $120, service 26 days ago
    assert underpaid(world, claim) == 30.0
    cut = _with_change(world, "HRTL", 40, fee_schedule={"99214": 120.0})
    assert underpaid(cut, claim) == 0.0
    after = _with_change(world, "HRTL", 10, fee_schedule={"99214": 120.0})
    assert underpaid(after, claim) == 30.0


def test_documentation_for_auth_follows_the_rule_of_the_service_date(world: World) -> None:
    asked = RequestAuthorizationArgs(
        patient_id="P-021",
        payer_id="HRTL",
        procedure_codes=["20610"],
        diagnosis_codes=["M17.11"],
        service_date=world.today + timedelta(days=7),
    )
    strict = _with_change(world, "HRTL", -3, auth_requires_documentation=True)
    result, _ = apply(strict, "request_authorization", asked)
    assert result.model_dump()["authorization"]["status"] == "denied"
    lenient = _with_change(world, "HRTL", -10, auth_requires_documentation=True)
    result, _ = apply(lenient, "request_authorization", asked)
    assert result.model_dump()["authorization"]["status"] == "approved"


def test_a_pending_bulletin_is_hidden_until_published_and_publishing_twice_keeps_its_date(
    world: World, call: Call
) -> None:
    shown = call("get_payer_bulletins", payer_id="HRTL")
    assert shown.result is not None and [b["bulletin_id"] for b in shown.result["bulletins"]] == [
        "BUL-HRTL-01"
    ]
    rules = call("get_payer_rules", payer_id="HRTL")
    assert rules.result is not None
    assert [c["bulletin_id"] for c in rules.result["rule_changes"]] == ["BUL-HRTL-01"]
    published = publish_bulletin(world, "BUL-HRTL-02")
    again = publish_bulletin(
        published.model_copy(update={"today": world.today + timedelta(days=3)}), "BUL-HRTL-02"
    )
    assert again.bulletins["BUL-HRTL-02"].published_date == world.today
    backend = SimBackend(published)
    answer = backend.invoke("get_payer_rules", GetPayerRulesArgs(payer_id="HRTL")).model_dump()
    assert answer["rules"]["retro_auth_window_days"] == 3
    assert len(answer["rule_changes"]) == 2


def test_publishing_an_unknown_bulletin_is_refused(world: World) -> None:
    with pytest.raises(DomainError) as refused:
        publish_bulletin(world, "BUL-NOPE")
    assert refused.value.code == "unknown_bulletin"


def test_bulletins_of_an_unknown_payer_are_refused_and_a_bad_date_fails_validation(call: Call) -> None:
    unknown = call("get_payer_bulletins", payer_id="NOPE")
    assert unknown.error is not None and unknown.error.details["code"] == "unknown_payer"
    bad = call("get_payer_rules", payer_id="HRTL", service_date="yesterday")
    assert bad.outcome is ToolOutcome.FAILED and bad.error is not None and bad.error.kind == "validation"
