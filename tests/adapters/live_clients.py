"""What the conformance tests hold of a running sandbox: its admin client and a toolbox over the
domain's live backend; and the check that a live run matches the sim's."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

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


@contextmanager
def live_clients(
    admin: SandboxAdmin[Any], backend: HttpLiveBackend, tools: Sequence[ToolSpec[Any, Any]]
) -> Iterator[LiveClients]:
    """Both clients, closed afterwards."""
    try:
        yield LiveClients(admin, Toolbox(tools, backend))
    finally:
        admin.close()
        backend.close()


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
