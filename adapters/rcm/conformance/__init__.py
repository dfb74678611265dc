"""Scripted tool-call scenarios over the seed world: the conformance suite both backends must pass.

Each scenario is a fixed sequence of calls (good moves, wrong moves, refusals, malformed calls).
`run_scenario` plays one through a `Toolbox` (and an admin step, the payer publishing a bulletin,
through `publish`); `comparable` strips what legitimately differs
between backends (latency; the HTTP status on a domain refusal, which the sim has no HTTP for).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.rcm.conformance.carc import CARC_SCENARIOS
from adapters.rcm.conformance.dated import DATED_SCENARIOS, PUBLISH
from adapters.rcm.conformance.edges import EDGE_SCENARIOS
from adapters.rcm.conformance.rules import RULE_SCENARIOS
from adapters.rcm.conformance.steps import Scenario, Step
from adapters.toolbox import Toolbox
from schemas.tools import ToolCall, ToolResult

SCENARIOS: tuple[Scenario, ...] = CARC_SCENARIOS + EDGE_SCENARIOS + RULE_SCENARIOS + DATED_SCENARIOS


def run_scenario(
    toolbox: Toolbox, scenario: Scenario, publish: Callable[[str], None] | None = None
) -> list[ToolResult]:
    """Play `scenario` through `toolbox`; call ids are `<scenario>:<step>` so runs line up. An
    admin step (`PUBLISH`) goes to `publish` and gives no result; a scenario with one needs it."""
    results: list[ToolResult] = []
    for n, (tool, arguments) in enumerate(scenario.steps):
        if tool == PUBLISH:
            if publish is None:
                raise ValueError(f"scenario {scenario.name} publishes a bulletin: pass `publish`")
            publish(str(arguments["bulletin_id"]))
            continue
        results.append(toolbox.call(ToolCall(call_id=f"{scenario.name}:{n}", name=tool, arguments=arguments)))
    return results


def comparable(result: ToolResult) -> dict[str, Any]:
    """The result without latency, and without the HTTP status of a domain refusal."""
    data = result.model_dump(mode="json", exclude={"latency_ms"})
    if data["error"] is not None and data["error"]["kind"] == "domain":
        data["error"]["status_code"] = None
    return data


__all__ = [
    "CARC_SCENARIOS",
    "DATED_SCENARIOS",
    "EDGE_SCENARIOS",
    "PUBLISH",
    "RULE_SCENARIOS",
    "SCENARIOS",
    "Scenario",
    "Step",
    "comparable",
    "run_scenario",
]
