"""What the generator says each case's right handling is, as verifier rules.

The generator decides a case's resolution when it builds the world; the reference solver has to
reach the same resolution from the tools alone. Validation (gold must score 1.0) is where the two
independent encodings of the brief must agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemas.tasks import CallConstraint

WRITES = (
    "submit_replacement_claim", "submit_appeal", "request_authorization", "bill_other_payer",
    "transfer_to_patient_responsibility", "post_write_off", "close_claim", "escalate_to_human",
)  # fmt: skip
_WHY = {
    "submit_appeal": "a needless appeal wastes weeks",
    "post_write_off": "writing off a recoverable claim loses revenue",
    "transfer_to_patient_responsibility": "billing the patient here breaks the payer contract",
    "submit_replacement_claim": "a resubmission does not fix this denial",
    "escalate_to_human": "this case needs no human",
    "request_authorization": "no authorization request is called for",
    "bill_other_payer": "no other payer is responsible",
    "close_claim": "the claim still needs work (an appeal, a resubmission or another payer is pending)",
}


@dataclass(frozen=True)
class Intent:
    """A case's right handling: the resolution and the calls it requires and rules out."""

    resolution: str
    required: tuple[CallConstraint, ...] = ()
    must_escalate: bool = False
    allowed: tuple[str, ...] = ()
    """Write tools the resolution uses; every other write tool is forbidden."""

    @property
    def forbidden(self) -> tuple[CallConstraint, ...]:
        # A needless escalation is the generic `process.escalation` check's to catch, not a rule here.
        return tuple(
            CallConstraint(tool=tool, reason=_WHY[tool])
            for tool in WRITES
            if tool not in self.allowed and tool != "escalate_to_human"
        )

    def __add__(self, other: Intent) -> Intent:
        return Intent(
            resolution=f"{self.resolution}+{other.resolution}",
            required=self.required + other.required,
            must_escalate=self.must_escalate or other.must_escalate,
            allowed=tuple(dict.fromkeys(self.allowed + other.allowed)),
        )


def need(tool: str, why: str = "", /, **arguments: Any) -> CallConstraint:
    return CallConstraint(tool=tool, arguments=arguments, reason=why)


def replacement(claim_id: str, reason: str, **constraints: Any) -> Intent:
    rule = need("submit_replacement_claim", reason, claim_id=claim_id, **constraints)
    return Intent("replacement", (rule,), allowed=("submit_replacement_claim",))


def appeal(claim_id: str, basis: str, attach: list[str]) -> Intent:
    rules = [need("submit_appeal", f"appeal on {basis}", claim_id=claim_id, basis=basis)]
    rules += [
        need(
            "submit_appeal",
            f"the appeal must attach {doc}",
            **{"attachment_document_ids": {"$contains": doc}},
        )
        for doc in attach
    ]
    return Intent("appeal", tuple(rules), allowed=("submit_appeal",))


def escalation(claim_id: str, queue: str, **extra: Any) -> Intent:
    rule = need(
        "escalate_to_human", f"a human in {queue} must decide", claim_id=claim_id, queue=queue, **extra
    )
    return Intent(f"escalate:{queue}", (rule,), must_escalate=True, allowed=("escalate_to_human",))


def write_off(claim_id: str, reason_code: str, amount: float, limit: float) -> Intent:
    """A write-off, or the supervisor's approval of one when it passes the limit."""
    if amount > limit + 0.005:
        return escalation(claim_id, "supervisor", recommended_action="write_off", amount=round(amount, 2))
    rule = need("post_write_off", f"write off as {reason_code}", claim_id=claim_id, reason_code=reason_code)
    return Intent("write_off", (rule,), allowed=("post_write_off", "close_claim"))


def transfer(claim_id: str, reason: str) -> Intent:
    rule = need(
        "transfer_to_patient_responsibility",
        f"the patient owes it ({reason})",
        claim_id=claim_id,
        reason=reason,
    )
    return Intent("patient", (rule,), allowed=("transfer_to_patient_responsibility", "close_claim"))


def bill_other(claim_id: str, payer_id: str, sequence: str) -> Intent:
    rules = (
        need("check_eligibility", "verify coverage before billing another payer"),
        need(
            "bill_other_payer",
            f"{payer_id} covers it",
            claim_id=claim_id,
            payer_id=payer_id,
            payer_sequence=sequence,
        ),
    )
    return Intent("bill_other_payer", rules, allowed=("bill_other_payer",))


def close_duplicate(claim_id: str) -> Intent:
    rules = (
        need("find_original_claim", "look up the original before closing a duplicate", claim_id=claim_id),
        need("close_claim", "the original was paid", claim_id=claim_id, reason="duplicate_of_paid_original"),
    )
    return Intent("close", rules, allowed=("close_claim",))


def retro_auth(claim_id: str, approved: bool) -> Intent:
    """Request retro-authorization; resubmit with the number when it is approved at once."""
    rules = [need("request_authorization", "the payer allows retro-authorization", claim_id=claim_id)]
    allowed: tuple[str, ...] = ("request_authorization",)
    auth_number = {"$exists": True}  # the number the payer issues; the outcome check compares its value
    if approved:
        rules.append(
            need(
                "submit_replacement_claim",
                "resubmit with the new auth",
                **{"corrections.prior_auth_number": auth_number},
            )
        )
        allowed += ("submit_replacement_claim",)
    return Intent("retro_auth", tuple(rules), allowed=allowed)
