"""Scripted tool-call scenarios over the sandbox's seed world: the conformance suite both backends
must pass with the same results and the same final world.

`run_scenario` plays one through a `Toolbox`; `comparable` strips what legitimately differs between
backends (`adapters.conformance`).
"""

from __future__ import annotations

from adapters.conformance import Scenario, Step, comparable, play
from adapters.credit.conformance.scenarios import DECISIONS, READS, REFUSALS, REQUESTS

SCENARIOS: tuple[Scenario, ...] = READS + DECISIONS + REQUESTS + REFUSALS


run_scenario = play
"""Play a scenario through a `Toolbox`."""


__all__ = ["SCENARIOS", "Scenario", "Step", "comparable", "run_scenario"]
