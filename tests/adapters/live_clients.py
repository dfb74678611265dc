"""What both domains' conformance tests share: the clients of a running sandbox (its admin client
and a toolbox over the live backend), the checks that a live run matches the sim's and that the
sim is deterministic, and the refusals a suite's results hold."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from adapters.conformance import Scenario, comparable
from adapters.live import HttpLiveBackend
from adapters.sandbox import SandboxAdmin
from adapters.spec import ToolSpec
from adapters.toolbox import Toolbox
from schemas.tools import ToolResult


@dataclass(frozen=True)
class LiveClients:
    admin: Any
    """The domain's `SandboxAdmin`."""
    toolbox: Toolbox


def live_clients_fixture(
    admin: type[SandboxAdmin[Any]],
    backend: type[HttpLiveBackend],
    token: str,
    tools: Sequence[ToolSpec[Any, Any]],
) -> Any:
    """A module fixture `clients` over the `sandbox_url` fixture's sandbox, closed afterwards."""

    @pytest.fixture(scope="module")
    def clients(sandbox_url: str) -> Iterator[LiveClients]:
        live = backend(sandbox_url, timeout_s=10)
        both = LiveClients(admin(sandbox_url, token), Toolbox(tools, live))
        yield both
        both.admin.close()
        live.close()

    return clients


def assert_same_run(
    scenario: Scenario, live: list[ToolResult], sim: tuple[list[ToolResult], BaseModel], live_world: BaseModel
) -> None:
    """Step by step the same results (less what may differ), and the same final world."""
    results, world = sim
    for step, (got, want) in enumerate(zip(live, results, strict=True)):
        assert comparable(got) == comparable(want), f"step {step}: {scenario.steps[step][0]}"
    assert live_world == world


def assert_deterministic(
    sim_run: Callable[[Scenario], tuple[list[ToolResult], BaseModel]], scenario: Scenario
) -> list[ToolResult]:
    """Two sim runs of `scenario` give the same results and the same world; the first run's results."""
    first, world_one = sim_run(scenario)
    second, world_two = sim_run(scenario)
    assert [comparable(r) for r in first] == [comparable(r) for r in second]
    assert world_one == world_two
    return first


def refusals(results: Iterable[ToolResult]) -> tuple[set[str], set[Any]]:
    """The error kinds among `results`, and the codes of the domain refusals."""
    errors = [r.error for r in results if r.error is not None]
    return {e.kind for e in errors}, {e.details.get("code") for e in errors if e.kind == "domain"}
