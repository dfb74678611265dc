"""Scripted tool-call scenarios over the sandbox's seed world: the conformance suite both backends
must pass with the same results and the same final world.

`run_scenario` plays one through a `Toolbox`; `comparable` strips what legitimately differs between
backends (latency; the HTTP status on a domain refusal, which the sim has no HTTP for).
"""

from __future__ import annotations

from typing import Any

from adapters.credit.conformance.scenarios import DECISIONS, READS, REFUSALS, REQUESTS
from adapters.credit.conformance.steps import Scenario, Step
from adapters.toolbox import Toolbox
from schemas.tools import ToolCall, ToolResult

SCENARIOS: tuple[Scenario, ...] = READS + DECISIONS + REQUESTS + REFUSALS


def run_scenario(toolbox: Toolbox, scenario: Scenario) -> list[ToolResult]:
    """Play `scenario` through `toolbox`; call ids are `<scenario>:<step>` so runs line up."""
    return [
        toolbox.call(ToolCall(call_id=f"{scenario.name}:{n}", name=tool, arguments=arguments))
        for n, (tool, arguments) in enumerate(scenario.steps)
    ]


def comparable(result: ToolResult) -> dict[str, Any]:
    """The result without latency, and without the HTTP status of a domain refusal."""
    data = result.model_dump(mode="json", exclude={"latency_ms"})
    if data["error"] is not None and data["error"]["kind"] == "domain":
        data["error"]["status_code"] = None
    return data


__all__ = ["SCENARIOS", "Scenario", "Step", "comparable", "run_scenario"]
