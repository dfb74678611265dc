"""Each domain reads its own escalate call through its `EpisodeRules`; the engine reads none."""

from __future__ import annotations

from engine import EscalationFields
from envs.credit.domain import RULES as CREDIT
from envs.rcm.domain import RULES as RCM
from schemas import WorkItem


def test_the_rcm_rules_read_the_recommended_action_and_the_queue() -> None:
    rcm = {
        "claim_id": "C-1",
        "queue": "supervisor",
        "recommended_action": "approve_write_off",
        "reason": "over $500",
    }
    assert RCM.escalation(rcm) == EscalationFields("over $500", "approve_write_off", "supervisor")
    assert RCM.escalation({}) == EscalationFields("the agent asked for a human", None, None)


def test_the_credit_rules_read_a_committee_hand_off() -> None:
    credit = {
        "package_id": "PKG-1006",
        "reasons": ["sponsor_prior_default", "covenant_lite"],
        "recommended_decision": "decline",
        "memo": "the sponsor defaulted before and the terms carry no covenant",
    }
    assert CREDIT.escalation(credit) == EscalationFields(
        "sponsor_prior_default, covenant_lite", "decline", None
    )


def test_an_rcm_escalation_in_a_queue_hands_off_one_claim_and_a_denials_the_whole_item() -> None:
    queue = WorkItem(
        domain="rcm",
        kind="work_queue",
        item_id="WQ-1",
        instructions="work the queue",
        payload={"claims": [{"claim_id": "C-1"}, {"claim_id": "C-2"}], "worked_on": "2025-06-16"},
    )
    denial = WorkItem(
        domain="rcm", kind="denial", item_id="C-1", instructions="work it", payload={"claim_id": "C-1"}
    )
    assert not RCM.escalation_ends(queue, {"claim_id": "C-1"})
    assert RCM.escalation_ends(queue, {"claim_id": "C-9"})  # not a claim of the queue
    assert RCM.escalation_ends(denial, {"claim_id": "C-1"})
    assert CREDIT.escalation_ends(queue, {"claim_id": "C-1"})  # a domain without parts
