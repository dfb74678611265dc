"""Conformance: every scripted scenario gives the same results and the same final world through
the sim and through the live backend against the real sandbox server (uvicorn on loopback)."""

from __future__ import annotations

import pytest

from adapters.rcm import RCM_TOOLS, SEED_CASES, SimBackend, World, seed_world
from adapters.rcm.bulletins import publish_bulletin
from adapters.rcm.conformance import SCENARIOS, Scenario, run_scenario
from adapters.rcm.fixtures import SEED_DATED_CASES, SEED_RETURNED_CASES, SEED_RULE_CASES
from adapters.rcm.live import LiveBackend
from adapters.rcm.sandbox import SandboxAdmin
from adapters.toolbox import Toolbox
from schemas.tools import ToolOutcome, ToolResult
from tests.adapters.conftest import SANDBOX_ADMIN_TOKEN
from tests.adapters.live_clients import (
    LiveClients,
    assert_deterministic,
    assert_same_run,
    live_clients_fixture,
    refusals,
)

IDS = [s.name for s in SCENARIOS]


def _sim_run(scenario: Scenario) -> tuple[list[ToolResult], World]:
    backend = SimBackend(seed_world())

    def publish(bulletin_id: str) -> None:
        backend.world = publish_bulletin(backend.world, bulletin_id)

    return run_scenario(Toolbox(RCM_TOOLS, backend), scenario, publish), backend.world


def test_the_suite_covers_every_tool_every_seed_claim_refusals_and_validation() -> None:
    assert len(SCENARIOS) >= 30
    assert len(set(IDS)) == len(IDS)
    steps = [step for s in SCENARIOS for step in s.steps]
    assert {spec.name for spec in RCM_TOOLS} <= {tool for tool, _ in steps}
    mentioned = {str(args.get("claim_id")) for _, args in steps}
    assert (
        set(SEED_CASES) | set(SEED_RETURNED_CASES) | set(SEED_RULE_CASES) | set(SEED_DATED_CASES) <= mentioned
    )
    outcomes = [r for s in SCENARIOS for r in _sim_run(s)[0]]
    kinds, codes = refusals(outcomes)
    assert {"domain", "validation", "unknown_tool"} <= kinds
    assert {
        "appeal_window_closed",
        "retro_auth_window_closed",
        "write_off_needs_approval",
        "control_number_mismatch",
        "unknown_claim",
        "claim_closed",
        "no_coverage_at_payer",
        "claim_not_replaceable",
        "claim_was_adjudicated",
        "claim_in_process",
        "claim_already_resubmitted",
        "no_appeal_rights",
        "unknown_payer",
    } <= codes


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_scenario_is_deterministic_in_the_sim(scenario: Scenario) -> None:
    first = assert_deterministic(_sim_run, scenario)
    assert any(r.outcome is ToolOutcome.OK for r in first) or scenario.name in (
        "unknown_ids_are_refused",
        "malformed_arguments_fail_validation",
        "bill_other_payer_refusals",
    )


clients = live_clients_fixture(SandboxAdmin, LiveBackend, SANDBOX_ADMIN_TOKEN, RCM_TOOLS)


@pytest.mark.integration
@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_sandbox_gives_the_sim_results_and_final_world(scenario: Scenario, clients: LiveClients) -> None:
    clients.admin.reset()
    live = run_scenario(clients.toolbox, scenario, clients.admin.publish_bulletin)
    assert_same_run(scenario, live, _sim_run(scenario), clients.admin.world())


def test_a_rule_applies_by_the_claims_date_of_service_and_a_pending_bulletin_shows_once_published() -> None:
    dated = {s.name: s for s in SCENARIOS}
    first, _ = _sim_run(dated["payer_rules_apply_by_date_of_service"])
    today, before, bulletins, refused, _, approved, replaced, unknown = first
    assert today.result is not None and today.result["rules"]["retro_auth_window_days"] == 30
    assert before.result is not None and before.result["rules"]["retro_auth_window_days"] == 0
    assert bulletins.result is not None
    assert [b["bulletin_id"] for b in bulletins.result["bulletins"]] == ["BUL-HRTL-01"]
    assert refused.error is not None and refused.error.details["code"] == "retro_auth_window_closed"
    assert approved.result is not None and approved.result["authorization"]["status"] == "approved"
    assert replaced.outcome is ToolOutcome.OK
    assert unknown.error is not None and unknown.error.details["code"] == "unknown_payer"
    second, world = _sim_run(dated["a_bulletin_published_mid_queue"])
    seen, shown, enforced, seen_after, shown_after, older, _ = second
    assert seen.result is not None and len(seen.result["bulletins"]) == 1
    assert shown.result is not None and shown.result["rules"]["retro_auth_window_days"] == 30
    assert enforced.error is not None and enforced.error.details["code"] == "retro_auth_window_closed"
    assert seen_after.result is not None and len(seen_after.result["bulletins"]) == 2
    assert seen_after.result["bulletins"][1]["changes"] == {"retro_auth_window_days": 3}
    assert shown_after.result is not None and shown_after.result["rules"]["retro_auth_window_days"] == 3
    assert older.result is not None and older.result["rules"]["retro_auth_window_days"] == 30
    assert world.bulletins["BUL-HRTL-02"].published_date == world.today
