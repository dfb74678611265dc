"""Recorded production episodes for the promotion tests (`loopline.demo.episodes`, which the bench
uses too), and the raw PHI of a source world for the scans."""

from __future__ import annotations

from typing import Any

from loopline.demo.episodes import record, redactor

__all__ = ["raw_phi", "record", "redactor"]


def raw_phi(world: dict[str, Any]) -> set[str]:
    """Every PHI value of a source world, as text: names, birth dates, member ids, document lines."""
    found: set[str] = set()
    for patient in world["patients"].values():
        found |= {
            patient["first_name"],
            patient["last_name"],
            patient["birth_date"],
            patient["address"]["line1"],
        }
    for coverage in world["coverages"].values():
        found |= {coverage["member_id"], coverage["subscriber_birth_date"]}
    for claim in world["claims"].values():
        found |= {claim["member_id"], claim["patient_birth_date"]}
    for document in world["documents"].values():
        found |= {line for line in document["text"].splitlines() if len(line) > 12}
    return {value for value in found if len(value) >= 4}
