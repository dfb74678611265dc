"""A third domain that lives only in the tests: a parcel desk, described by one `DomainDescriptor`
and registered by one line (`conftest.py`), run by the generic machinery end to end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import PlanPolicy
from engine.domain import ToolDomain
from engine.rules import DomainRules, EscalationFields
from envs.domain import DomainDescriptor, PolicyEntry, Reference, TaskSetEntry
from tests.toydomain.tasks import VERIFIER, make_tasks, reference_plan
from tests.toydomain.tools import ESCALATE, SANDBOX, TOOLS, LiveBackend, SimBackend
from tests.toydomain.world import ParcelWorld


class ParcelDesk:
    """The world part: the sim, the outcome view and facts."""

    name = "parcels"
    terminal_tools = frozenset({ESCALATE})
    escalation_tools = frozenset({ESCALATE})

    def tool_specs(self) -> tuple[Any, ...]:
        return TOOLS

    def make_backend(self, world: Mapping[str, Any], *, seed: int) -> SimBackend:
        return SimBackend(ParcelWorld.from_snapshot(dict(world)))

    def outcome_view(self, world: Mapping[str, Any]) -> dict[str, Any]:
        return dict(world)

    def outcome_facts(
        self, initial: Mapping[str, Any], final: Mapping[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        return {"parcels": list(final.get("parcels", {}).values())}


RULES = DomainRules(ESCALATE, lambda args: EscalationFields(reason=str(args.get("reason", ""))))
DOMAIN = DomainDescriptor(
    tool=ToolDomain(
        "parcels", TOOLS, RULES, lambda url, timeout: LiveBackend(url, timeout_s=timeout), ParcelWorld
    ),
    world=ParcelDesk(),
    task_sets=(TaskSetEntry("parcels", lambda seed: make_tasks(12, seed), "12 parcels that went wrong"),),
    policies=(
        PolicyEntry("parcels", "reference", PlanPolicy("reference", reference_plan), "the desk's rule"),
    ),
    verifiers=(VERIFIER,),
    reference=Reference(reference_plan, "parcels-reference"),
    sandbox=lambda: SANDBOX,
)
