"""The rcm resolutions a reviewer can state in the review form, as outcome facts. Pure.

A reviewer picks one or more of the denial desk's moves (write off an amount, bill the patient an
amount, appeal, hand the case to a person, close the claim) and fills their arguments from the
case. Each picked move is a write call on the worked claim, and the facts it leaves are written
the way the suggestion writes the reference specialist's (`envs.rcm.promotion`): the same
assertion per kind of record, so a reviewer's resolution and the reference's are checked alike.
Work the resolution leaves pending with the payer (an appeal, a resubmission, another payer, an
authorization) keeps the claim open: closing it would abandon that work, whatever the resolution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from envs.rcm.intents import stays_open
from schemas.tasks import Assertion
from schemas.tools import ToolCall

MOVES = (
    "post_write_off",
    "transfer_to_patient_responsibility",
    "submit_appeal",
    "escalate_to_human",
    "close_claim",
)
"""The moves the review form offers, in the order it shows them."""
PENDING = (
    "submit_appeal",
    "submit_replacement_claim",
    "submit_new_claim",
    "request_authorization",
    "bill_other_payer",
)
"""Writes whose answer is still to come from the payer: the claim stays open behind them."""
_PENDING_WHY = {
    "submit_appeal": "closing a claim while its appeal is pending abandons the appeal",
    "submit_replacement_claim": "the corrected claim is pending with the payer",
    "submit_new_claim": "the new claim is pending with the payer",
    "request_authorization": "the authorization decision is pending",
    "bill_other_payer": "the other payer's answer is pending",
}


def name(text: str) -> str:
    """An assertion name from free text."""
    return "".join(ch if ch.isalnum() or ch in "_.:-" else "_" for ch in text.lower())[:128]


def one(label: str, reason: str, collection: str, where: dict[str, Any]) -> Assertion:
    """Exactly one record of `collection` matches `where`."""
    return Assertion(
        name=name(label), reason=reason, collection=collection, where=where, min_count=1, max_count=1
    )


def posted(collection: str, claim_id: str, kind: str, reason: str, total: float) -> Assertion:
    """Money moved on `claim_id` for `reason` sums to `total` (one posting or several)."""
    why = {"write_offs": "the amount is not recoverable", "patient_transfers": "the patient owes this amount"}
    return Assertion(
        name=name(f"{collection}.{claim_id}.{reason}"),
        reason=f"{why.get(collection, 'the amount moves')} ({reason})",
        collection=collection,
        where={"new": True, "claim_id": claim_id, kind: reason},
        min_count=1,
        total_of="amount",
        total=round(total, 2),
    )


def appealed(claim_id: str, basis: str) -> Assertion:
    """One appeal of the claim on `basis` grounds."""
    where = {"new": True, "claim_id": claim_id, "basis": basis}
    return one(f"appeal.{claim_id}", f"appeal on {basis} grounds", "appeals", where)


def handed_off(claim_id: str, queue: str, action: str) -> Assertion:
    """One hand-off of the claim to `queue`, recommending `action`."""
    where = {"new": True, "claim_id": claim_id, "queue": queue, "recommended_action": action}
    return one(f"escalation.{claim_id}", f"a human decides ({queue})", "escalations", where)


def closed(claim_id: str, reason: str) -> Assertion:
    """The claim is closed, for `reason` (a duplicate is not a claim paid as expected)."""
    where = {"claim_id": claim_id, "closed_now": True, "closed_reason": reason}
    return one(f"closed.{claim_id}", f"the claim needs no more work ({reason})", "claims", where)


def pending(tool: str, claim_id: str) -> Assertion | None:
    """The claim stays open while `tool`'s work is pending with the payer (None for other tools)."""
    why = _PENDING_WHY.get(tool)
    return stays_open(claim_id, why) if why else None


def move_facts(claim_id: str, calls: Sequence[ToolCall]) -> tuple[Assertion, ...]:
    """What the picked moves (validated write calls on `claim_id`) leave in the world; raises
    `ValueError` for a move the form does not offer or one that contradicts another."""
    out: list[Assertion] = []
    totals: dict[tuple[str, str, str], float] = {}
    tools = [call.name for call in calls]
    if "close_claim" in tools and any(t in PENDING for t in tools):
        raise ValueError("a claim with an appeal pending cannot be closed in the same resolution")
    for call in calls:
        args: Mapping[str, Any] = call.arguments
        if call.name == "post_write_off":
            key = ("write_offs", "reason_code", str(args["reason_code"]))
            totals[key] = totals.get(key, 0.0) + float(args["amount"])
        elif call.name == "transfer_to_patient_responsibility":
            key = ("patient_transfers", "reason", str(args["reason"]))
            totals[key] = totals.get(key, 0.0) + float(args["amount"])
        elif call.name == "submit_appeal":
            out.append(appealed(claim_id, str(args["basis"])))
        elif call.name == "escalate_to_human":
            out.append(handed_off(claim_id, str(args["queue"]), str(args["recommended_action"])))
        elif call.name == "close_claim":
            out.append(closed(claim_id, str(args["reason"])))
        else:
            raise ValueError(f"{call.name} is not a move the review form offers")
        kept = pending(call.name, claim_id)
        if kept is not None:
            out.append(kept)
    out += [posted(c, claim_id, kind, reason, total) for (c, kind, reason), total in totals.items()]
    return tuple(out)


def case_values(world: Mapping[str, Any], claim_id: str) -> dict[str, tuple[str, ...]]:
    """Values of the case the form offers for a move's arguments: the claim's amounts (charges,
    payments, adjustments, the patient's share) and its documents."""
    amounts: set[float] = set()
    for era in world.get("remittances", {}).values():
        if era.get("claim_id") != claim_id:
            continue
        amounts |= {
            float(era.get(k) or 0) for k in ("total_charge", "paid_amount", "patient_responsibility_amount")
        }
        for line in era.get("lines", []):
            amounts |= {float(line.get("charge") or 0), float(line.get("paid") or 0)}
            amounts |= {float(a.get("amount") or 0) for a in line.get("adjustments", [])}
    documents = sorted(d for d, doc in world.get("documents", {}).items() if doc.get("claim_id") == claim_id)
    return {
        "amount": tuple(f"{a:.2f}" for a in sorted(amounts) if a > 0),
        "attachment_document_ids": tuple(documents),
    }
