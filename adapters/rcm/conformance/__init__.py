"""Scripted tool-call scenarios over the seed world: the conformance suite both backends must pass.

Each scenario is a fixed sequence of calls (good moves, wrong moves, refusals, malformed calls).
`run_scenario` plays one through a `Toolbox` (and an admin step, the payer publishing a bulletin,
through `publish`); `comparable` (`adapters.conformance`) strips what legitimately differs between
backends.
"""

from __future__ import annotations

from collections.abc import Callable

from adapters.conformance import Scenario, Step, comparable, play
from adapters.rcm.conformance.carc import CARC_SCENARIOS
from adapters.rcm.conformance.dated import DATED_SCENARIOS, PUBLISH
from adapters.rcm.conformance.edges import EDGE_SCENARIOS
from adapters.rcm.conformance.rules import RULE_SCENARIOS
from adapters.toolbox import Toolbox
from schemas.tools import ToolResult

SCENARIOS: tuple[Scenario, ...] = CARC_SCENARIOS + EDGE_SCENARIOS + RULE_SCENARIOS + DATED_SCENARIOS


def run_scenario(
    toolbox: Toolbox, scenario: Scenario, publish: Callable[[str], None] | None = None
) -> list[ToolResult]:
    """Play `scenario` through `toolbox`; its admin step (`PUBLISH`, the payer publishing a bulletin)
    goes to `publish`."""
    return play(
        toolbox, scenario, None if publish is None else lambda step: publish(str(step[1]["bulletin_id"]))
    )


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
