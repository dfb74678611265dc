"""Outcome facts of a credit world: flat records the outcome specs assert over.

- `decisions`: one per recorded recommendation (`class` = its decision) or escalation (`class` =
  `escalate`), with every figure flat (`headroom_<metric>` per covenant);
- `conditions`: one per condition of a recommendation (`kind`, `value`);
- `requests`: one per information request (`items`);
- `escalations`: one per escalation (`reasons`).
Each record says (`new`) whether the episode created it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FIGURES = (
    "adjusted_ebitda",
    "total_leverage",
    "senior_leverage",
    "interest_coverage",
    "fixed_charge_coverage",
    "dscr",
    "liquidity",
)


def flat_figures(figures: Mapping[str, Any]) -> dict[str, Any]:
    """The figures as flat fields, headroom as `headroom_<metric>`."""
    out = {k: figures.get(k) for k in FIGURES}
    for row in figures.get("covenant_headroom", ()):
        out[f"headroom_{row['metric']}"] = row["headroom_pct"]
    return out


def outcome_facts(initial: Mapping[str, Any], final: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The final world as records, each marked `new` when the episode created it."""

    def new(collection: str, key: str) -> bool:
        return key not in initial.get(collection, {})

    decisions: list[dict[str, Any]] = []
    conditions: list[dict[str, Any]] = []
    for rid, rec in final.get("recommendations", {}).items():
        decisions.append(
            {
                "package_id": rec["package_id"],
                "class": rec["decision"],
                "new": new("recommendations", rid),
                **flat_figures(rec["figures"]),
            }
        )
        conditions += [
            {
                "package_id": rec["package_id"],
                "kind": c["kind"],
                "value": c.get("value"),
                "new": new("recommendations", rid),
            }
            for c in rec.get("conditions", ())
        ]
    escalations: list[dict[str, Any]] = []
    for eid, esc in final.get("escalations", {}).items():
        decisions.append(
            {
                "package_id": esc["package_id"],
                "class": "escalate",
                "new": new("escalations", eid),
                **flat_figures(esc["figures"]),
            }
        )
        escalations.append(
            {"package_id": esc["package_id"], "reasons": list(esc["reasons"]), "new": new("escalations", eid)}
        )
    requests = [
        {"package_id": req["package_id"], "items": list(req["items"]), "new": new("requests", qid)}
        for qid, req in final.get("requests", {}).items()
    ]
    return {
        "decisions": decisions,
        "conditions": conditions,
        "requests": requests,
        "escalations": escalations,
    }
