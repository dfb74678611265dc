"""Which work items the rcm domain can work: the check the bridge runs before it starts an episode.

A work item is the business system's hand-off (design.md §1); what the agent needs to find its
claim is `payload.claim_id` for a denial and `payload.claims` (each with a `claim_id`) for a work
queue. Anything else would only fail later, inside a policy or a tool, so it is refused up front
with the field that is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.tasks import WorkItem

DOMAIN = "rcm"
DENIAL_KIND = "denial"
QUEUE_KIND = "work_queue"
KINDS = (DENIAL_KIND, QUEUE_KIND)


def _claim_id_problem(value: Any, where: str) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return f"{where} must be a non-empty string (the claim's id in the practice system)"
    return None


def work_item_problem(item: WorkItem) -> str | None:
    """Why the rcm domain cannot work `item`, naming the field; None when it can."""
    if item.domain != DOMAIN:
        return f"this bridge works domain {DOMAIN!r} only, not domain {item.domain!r}"
    if item.kind not in KINDS:
        return f"kind {item.kind!r} is not an rcm work item kind; expected one of {', '.join(KINDS)}"
    if item.kind == DENIAL_KIND:
        return _claim_id_problem(item.payload.get("claim_id"), "payload.claim_id")
    claims = item.payload.get("claims")
    if not isinstance(claims, list) or not claims:
        return "payload.claims must be a non-empty list of claims, each with a claim_id"
    for index, claim in enumerate(claims):
        where = f"payload.claims[{index}].claim_id"
        problem = _claim_id_problem(claim.get("claim_id") if isinstance(claim, dict) else None, where)
        if problem is not None:
            return problem
    return None


def hands_off_one_claim(item: WorkItem, arguments: Mapping[str, Any]) -> bool:
    """Whether an escalation names one claim of a queue of several: that claim goes to a human and
    the work on the others goes on (a denial's escalation hands off the whole work item)."""
    if item.kind != QUEUE_KIND:
        return False
    claims = {str(c.get("claim_id")) for c in item.payload.get("claims") or [] if isinstance(c, dict)}
    return len(claims) > 1 and str(arguments.get("claim_id")) in claims
