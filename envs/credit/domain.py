"""The credit-underwriting domain's world and tools: the sim backend, the outcome view, and the
tools, live backend and episode rules the bridge serves."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from adapters.credit.sim import SimBackend
from adapters.credit.tools import CREDIT_TOOLS, ESCALATE, RECORD
from adapters.credit.work_items import work_item_problem
from adapters.credit.world import World
from engine.domain import ToolDomain, lazy_live
from engine.rules import DomainRules, EscalationFields
from envs.credit.facts import flat_figures, outcome_facts
from envs.domain import DomainWorld


def read_escalation(arguments: Mapping[str, Any]) -> EscalationFields:
    """`escalate_to_committee` lists its reasons and states the decision it recommends."""
    reasons = arguments.get("reasons")
    listed = ", ".join(r for r in reasons if isinstance(r, str)) if isinstance(reasons, list) else ""
    decision = arguments.get("recommended_decision")
    return EscalationFields(
        reason=listed if listed.strip() else "the agent asked for a human",
        recommendation=decision if isinstance(decision, str) and decision.strip() else None,
    )


# A recorded recommendation ends the episode as the escalation does.
RULES = DomainRules(
    escalate_tool=ESCALATE, read_escalation=read_escalation, terminal_tools=frozenset({RECORD})
)
TOOLS = ToolDomain(
    "credit", CREDIT_TOOLS, RULES, lazy_live("adapters.credit.live:LiveBackend"), World, work_item_problem
)


class CreditDomain(DomainWorld):
    """Credit packages worked to a recommendation through the `adapters.credit` tools over the sim."""

    tools = TOOLS

    def make_backend(self, world: Mapping[str, Any], *, seed: int) -> SimBackend:
        # The credit sim has no randomness: ids come from counters, dates from `today`.
        return SimBackend.from_doc(dict(world))

    def outcome_view(self, world: Mapping[str, Any]) -> dict[str, Any]:
        """What a deal team calls the outcome: each package's status, the decisions with their
        figures and conditions, the information asked for, the escalation reasons.

        Left out as rightly variable between two correct episodes: memos, request messages,
        condition wording and the recommended decision handed to committee.
        """
        return {
            "packages": {pid: p.get("status") for pid, p in world.get("packages", {}).items()},
            "recommendations": _rows(
                {
                    "package_id": r["package_id"],
                    "decision": r["decision"],
                    "figures": flat_figures(r["figures"]),
                    "conditions": sorted(
                        json.dumps({"kind": c["kind"], "value": c.get("value")}, sort_keys=True)
                        for c in r.get("conditions", ())
                    ),
                }
                for r in world.get("recommendations", {}).values()
            ),
            "requests": _rows(
                {"package_id": q["package_id"], "items": sorted(q["items"])}
                for q in world.get("requests", {}).values()
            ),
            "escalations": _rows(
                {
                    "package_id": e["package_id"],
                    "reasons": sorted(e["reasons"]),
                    "figures": flat_figures(e["figures"]),
                }
                for e in world.get("escalations", {}).values()
            ),
        }

    def outcome_facts(
        self, initial: Mapping[str, Any], final: Mapping[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        return outcome_facts(initial, final)


def _rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    # Records compared as a multiset: which id a record got depends on call order, not on merit.
    return sorted(rows, key=lambda row: json.dumps(row, sort_keys=True, default=str))


DOMAIN = CreditDomain()
