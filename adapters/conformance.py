"""The conformance suite's vocabulary: a `Scenario` of scripted tool calls over a domain's seed
world, played through a `Toolbox` over either backend, and `comparable` results.

Each domain writes its scenarios (`adapters.<domain>.conformance`); both its backends must give the
same results and the same final world. A step whose tool starts with `admin:` is a change the test
makes through the sandbox's admin routes (a payer publishing a bulletin), not a tool call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from adapters.toolbox import Toolbox
from schemas.tools import ToolCall, ToolResult

Step = tuple[str, dict[str, Any]]
ADMIN = "admin:"


@dataclass(frozen=True)
class Scenario:
    """A named sequence of tool calls starting from the seed world."""

    name: str
    steps: tuple[Step, ...]


def scenario(name: str, *steps: Step) -> Scenario:
    return Scenario(name, steps)


def play(
    toolbox: Toolbox, scenario: Scenario, admin: Callable[[Step], None] | None = None
) -> list[ToolResult]:
    """Play `scenario` through `toolbox`; call ids are `<scenario>:<step>` so runs line up. An admin
    step goes to `admin` and gives no result; a scenario with one needs it."""
    results: list[ToolResult] = []
    for n, (tool, arguments) in enumerate(scenario.steps):
        if tool.startswith(ADMIN):
            if admin is None:
                raise ValueError(f"scenario {scenario.name} has an admin step ({tool}): pass `admin`")
            admin((tool, arguments))
            continue
        results.append(toolbox.call(ToolCall(call_id=f"{scenario.name}:{n}", name=tool, arguments=arguments)))
    return results


def comparable(result: ToolResult) -> dict[str, Any]:
    """The result without latency, and without the HTTP status of a domain refusal (which the sim
    has no HTTP for)."""
    data = result.model_dump(mode="json", exclude={"latency_ms"})
    if data["error"] is not None and data["error"]["kind"] == "domain":
        data["error"]["status_code"] = None
    return data
