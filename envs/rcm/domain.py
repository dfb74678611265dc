"""The RCM denial-management domain's world and tools: the sim backend, the outcome view, and the
tools, live backend and episode rules the bridge serves."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from adapters.rcm.tools import RCM_TOOLS
from adapters.rcm.work_items import hands_off_one_claim, work_item_problem
from adapters.rcm.world import World
from engine.domain import ToolDomain, lazy_live
from engine.rules import DomainRules, EscalationFields
from envs.domain import DomainWorld
from envs.rcm.facts import outcome_facts
from envs.rcm.faults import FaultyBackend

ESCALATE = "escalate_to_human"


def read_escalation(arguments: Mapping[str, Any]) -> EscalationFields:
    """`escalate_to_human` states a reason, a recommended action and the queue it files into."""
    return EscalationFields(
        reason=_text(arguments.get("reason")) or "the agent asked for a human",
        recommendation=_text(arguments.get("recommended_action")),
        queue=_text(arguments.get("queue")),
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


# `escalate_to_human` is the rcm domain's only terminal tool; in a queue it hands off one claim
# and the work on the others goes on.
RULES = DomainRules(
    escalate_tool=ESCALATE, read_escalation=read_escalation, hands_off_part=hands_off_one_claim
)
TOOLS = ToolDomain(
    "rcm", RCM_TOOLS, RULES, lazy_live("adapters.rcm.live:LiveBackend"), World, work_item_problem
)

# Claim fields that are business facts; ids of people and dates are fixed by the world and the
# tools, free text never makes it in.
_CLAIM_FIELDS = (
    "payer_id",
    "payer_sequence",
    "status",
    "frequency_code",
    "member_id",
    "rendering_npi",
    "prior_auth_number",
    "diagnosis_codes",
    "original_claim_control_number",
    "replaces_claim_id",
    "replaced_by_claim_id",
    "billed_from_claim_id",
    "resubmits_claim_id",
    "resubmitted_as_claim_id",
    "prior_payer",
)
_LINE_FIELDS = ("procedure_code", "units", "place_of_service", "diagnosis_pointers")


class RcmDomain(DomainWorld):
    """Denied and underpaid claims, worked through the `adapters.rcm` tools over the sim."""

    tools = TOOLS

    def make_backend(self, world: Mapping[str, Any], *, seed: int) -> FaultyBackend:
        # The RCM sim has no randomness: ids come from counters, dates from `today`.
        return FaultyBackend.from_doc(dict(world))

    def outcome_view(self, world: Mapping[str, Any]) -> dict[str, Any]:
        """What a billing office would call the outcome: claims sent and their corrections, money
        moved (write-offs, patient transfers), appeals, authorizations, hand-offs, violations.

        Left out as rightly variable between two correct episodes: appeal letters, notes and
        escalation reasons (free text), the order of attachments and modifiers, and the
        recommendation on a non-supervisor escalation (the queue is what routes the work).
        """
        claims = world.get("claims", {})
        return {
            "claims": {cid: _claim(c) for cid, c in claims.items()},
            "closed_claims": sorted(
                f"{cid}:{c.get('closed_reason')}"
                for cid, c in claims.items()
                if c.get("work_status") == "closed"
            ),
            "appeals": _rows(
                _pick(a, "claim_id", "payer_id", "basis") for a in world.get("appeals", {}).values()
            ),
            "authorizations": {
                aid: {
                    **_pick(a, "claim_id", "payer_id", "retro", "status", "auth_number", "service_date"),
                    "procedure_codes": sorted(a.get("procedure_codes", [])),
                }
                for aid, a in world.get("authorizations", {}).items()
            },
            "write_offs": _rows(
                _pick(w, "claim_id", "amount", "reason_code") for w in world.get("write_offs", {}).values()
            ),
            "patient_transfers": _rows(
                _pick(t, "claim_id", "amount", "reason", "non_billable_amount")
                for t in world.get("patient_transfers", {}).values()
            ),
            "escalations": _rows(_escalation(e) for e in world.get("escalations", {}).values()),
            "violations": [_pick(v, "kind", "claim_id", "amount") for v in world.get("violations", [])],
        }

    def outcome_facts(
        self, initial: Mapping[str, Any], final: Mapping[str, Any]
    ) -> dict[str, list[dict[str, Any]]]:
        return outcome_facts(initial, final)


def _pick(doc: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {k: doc.get(k) for k in keys}


def _rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    # Records compared as a multiset: which id a record got depends on call order, not on merit.
    return sorted(rows, key=lambda row: json.dumps(row, sort_keys=True, default=str))


def _claim(claim: Mapping[str, Any]) -> dict[str, Any]:
    view = {k: claim.get(k) for k in _CLAIM_FIELDS}
    view["lines"] = [
        {**{k: line.get(k) for k in _LINE_FIELDS}, "modifiers": sorted(line.get("modifiers", []))}
        for line in claim.get("lines", [])
    ]
    return view


def _escalation(escalation: Mapping[str, Any]) -> dict[str, Any]:
    if escalation.get("queue") == "supervisor":
        return _pick(escalation, "claim_id", "queue", "recommended_action", "amount")
    return _pick(escalation, "claim_id", "queue")


DOMAIN = RcmDomain()
