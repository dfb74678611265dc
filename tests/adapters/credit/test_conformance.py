"""Conformance: every scripted scenario gives the same results and the same final world through
the sim and through the live backend against the real credit sandbox (uvicorn on loopback), the
statements travelling as the borrower's workbooks and PDF text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adapters.credit import CREDIT_TOOLS
from adapters.credit.conformance import SCENARIOS, Scenario, run_scenario
from adapters.credit.live import LiveBackend
from adapters.credit.sandbox import SEED_PACKAGES, SandboxAdmin, SandboxConfig, seed_world, serve_in_thread
from adapters.credit.sim import SimBackend
from adapters.credit.world import World
from adapters.toolbox import Toolbox
from schemas.tools import ToolOutcome, ToolResult
from tests.adapters.live_clients import (
    LiveClients,
    assert_deterministic,
    assert_same_run,
    live_clients_fixture,
    refusals,
)

TOKEN = "test-credit-sandbox-admin-token"
IDS = [s.name for s in SCENARIOS]


def _sim_run(scenario: Scenario) -> tuple[list[ToolResult], World]:
    backend = SimBackend(seed_world())
    return run_scenario(Toolbox(CREDIT_TOOLS, backend), scenario), backend.world


def test_the_suite_covers_every_tool_every_seed_package_refusals_and_validation() -> None:
    assert len(SCENARIOS) >= 20
    assert len(set(IDS)) == len(IDS)
    steps = [step for s in SCENARIOS for step in s.steps]
    assert {spec.name for spec in CREDIT_TOOLS} <= {tool for tool, _ in steps}
    assert set(SEED_PACKAGES) <= {str(args.get("package_id")) for _, args in steps}
    outcomes = [r for s in SCENARIOS for r in _sim_run(s)[0]]
    kinds, codes = refusals(outcomes)
    assert {"domain", "validation", "unknown_tool"} <= kinds
    assert {
        "unknown_package", "unknown_period", "package_closed", "conditions_required",
        "conditions_not_allowed", "already_requested",
    } <= codes  # fmt: skip
    sources = {
        r.result["period"]["source"] for r in outcomes if r.name == "get_financial_statements" and r.result
    }
    assert sources == {"workbook", "pdf_table"}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_scenario_is_deterministic_in_the_sim(scenario: Scenario) -> None:
    assert_deterministic(_sim_run, scenario)


@pytest.fixture(scope="module")
def sandbox_url() -> Iterator[str]:
    with serve_in_thread(SandboxConfig(admin_token=TOKEN)) as url:
        yield url


clients = live_clients_fixture(SandboxAdmin, LiveBackend, TOKEN, CREDIT_TOOLS)


@pytest.mark.integration
@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_sandbox_gives_the_sim_results_and_final_world(scenario: Scenario, clients: LiveClients) -> None:
    clients.admin.reset()
    live = run_scenario(clients.toolbox, scenario)
    assert_same_run(scenario, live, _sim_run(scenario), clients.admin.world())


@pytest.mark.integration
def test_every_period_of_the_first_packages_reads_over_the_wire(clients: LiveClients) -> None:
    clients.admin.reset()
    results = [r for s in SCENARIOS[:3] for r in run_scenario(clients.toolbox, s)]
    assert all(r.outcome is ToolOutcome.OK for r in results)
