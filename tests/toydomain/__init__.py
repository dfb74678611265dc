"""A third domain that lives only in the tests: a parcel desk, described by one `DomainDescriptor`
and registered by one line (`conftest.py`), run by the generic machinery end to end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import PlanPolicy
from engine.domain import ToolDomain, lazy_live
from engine.rules import DomainRules, EscalationFields
from envs.domain import DomainDescriptor, DomainWorld, Reference
from tests.toydomain.tasks import VERIFIER, make_tasks, reference_plan
from tests.toydomain.tools import ESCALATE, TOOLS, SimBackend
from tests.toydomain.world import ParcelWorld

RULES = DomainRules(ESCALATE, lambda args: EscalationFields(reason=str(args.get("reason", ""))))


class ParcelDesk(DomainWorld):
    """The world part: the sim, the outcome view and facts."""

    tools = ToolDomain("parcels", TOOLS, RULES, lazy_live("tests.toydomain.tools:LiveBackend"), ParcelWorld)

    def make_backend(self, world: Mapping[str, Any], *, seed: int) -> SimBackend:
        return SimBackend(ParcelWorld.from_snapshot(dict(world)))

    def outcome_view(self, world: Mapping[str, Any]) -> dict[str, Any]:
        return dict(world)

    def outcome_facts(
        self, initial: Mapping[str, Any], final: Mapping[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        return {"parcels": list(final.get("parcels", {}).values())}


DOMAIN = DomainDescriptor(
    world=ParcelDesk(),
    task_sets={"parcels": (lambda seed: make_tasks(12, seed), "12 parcels that went wrong")},
    policies={"reference": (PlanPolicy("reference", reference_plan), "the desk's rule")},
    verifiers=(VERIFIER,),
    reference=Reference(reference_plan, "parcels-reference"),
    sandbox="tests.toydomain.tools:SANDBOX",
)
