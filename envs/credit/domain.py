"""The credit-underwriting domain as an `envs` domain: tools, sim backend, outcome view."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from adapters.credit.sim import SimBackend
from adapters.credit.tools import CREDIT_TOOLS, ESCALATE, RECORD
from adapters.spec import ToolSpec
from envs.credit.facts import flat_figures, outcome_facts


class CreditDomain:
    """Credit packages worked to a recommendation through the `adapters.credit` tools over the sim."""

    name = "credit"
    terminal_tools = frozenset({RECORD, ESCALATE})
    escalation_tools = frozenset({ESCALATE})

    def tool_specs(self) -> Sequence[ToolSpec[Any, Any]]:
        return CREDIT_TOOLS

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
