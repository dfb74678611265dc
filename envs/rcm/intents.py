"""What the generator says each case's right handling is: outcome assertions and process rules.

The generator decides a case's resolution when it builds the world and writes it down as the facts
the final world must show (`outcome`, assertions over `envs.rcm.facts`), plus the calls a careful
specialist makes (`required`) and the write tools the resolution uses (`allowed`; `envs.rcm.specs`
turns every other one into a "must not have happened" assertion). The reference specialist is
scored against these like any policy: it does not define them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

# The deciding-fact builders are part of the vocabulary case builders write intents in (`want.seen`).
from envs.rcm.deciding import WRITE_OFF as WRITE_OFF
from envs.rcm.deciding import grounded as grounded
from envs.rcm.deciding import read_doc as read_doc
from envs.rcm.deciding import rules_read as rules_read
from envs.rcm.deciding import seen as seen
from envs.verifiers.evidence import DecidingFact
from schemas.tasks import Assertion, CallConstraint, Resolution

WRITES = (
    "submit_replacement_claim",
    "submit_appeal",
    "request_authorization",
    "bill_other_payer",
    "transfer_to_patient_responsibility",
    "post_write_off",
    "close_claim",
    "submit_new_claim",
    "escalate_to_human",
)
_WHY = {
    "submit_appeal": "a needless appeal wastes weeks",
    "post_write_off": "writing off a recoverable claim loses revenue",
    "transfer_to_patient_responsibility": "billing the patient here breaks the payer contract",
    "submit_replacement_claim": "a resubmission does not fix this denial",
    "submit_new_claim": "only a claim the payer never adjudicated (rejected, or MA130) goes out as a new claim",
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
    outcome: tuple[Assertion, ...] = ()
    """What the resolution leaves in the world."""
    keeps: str | None = None
    """For a corrected claim: the claim whose fields the new claim keeps, except those in `corrects`."""
    corrects: tuple[str, ...] = ()
    """Claim fields (dotted, as in the outcome facts) the correction changes."""
    resolutions: tuple[Resolution, ...] = ()
    """Where more than one handling is right: the spec's alternatives, one of which must hold."""
    evidence: tuple[DecidingFact, ...] = ()
    """The observations that make the handling right, each read before the writes it decides."""

    def citing(self, *facts: DecidingFact) -> Intent:
        """The intent with more deciding facts."""
        return replace(self, evidence=self.evidence + facts)

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
            outcome=self.outcome + other.outcome,
            keeps=self.keeps or other.keeps,
            corrects=self.corrects + other.corrects,
            resolutions=self.resolutions + other.resolutions,
            evidence=self.evidence + other.evidence,
        )


def need(tool: str, why: str = "", /, **arguments: Any) -> CallConstraint:
    return CallConstraint(tool=tool, arguments=arguments, reason=why)


def fact(name: str, reason: str, collection: str, /, count: int | None = 1, **where: Any) -> Assertion:
    """An assertion that exactly `count` records match (None: at least one)."""
    return Assertion(
        name=name, reason=reason, collection=collection, where=where, min_count=count or 1, max_count=count
    )


def stays_open(claim_id: str, why: str) -> Assertion:
    return Assertion(
        name="claim_stays_open",
        reason=why,
        collection="claims",
        where={"claim_id": claim_id, "closed_now": True},
        min_count=0,
        max_count=0,
    )


def replacement(claim_id: str, reason: str, **constraints: Any) -> Intent:
    rule = need("submit_replacement_claim", reason, claim_id=claim_id, **constraints)
    fields = {path.removeprefix("corrections."): want for path, want in constraints.items()}
    sent = fact(
        "replacement_sent",
        f"a corrected claim (frequency 7) replaces {claim_id}: {reason}",
        "claims",
        replaces_claim_id=claim_id,
        frequency_code="7",
        new=True,
        **fields,
    )
    return Intent(
        "replacement",
        (rule,),
        allowed=("submit_replacement_claim",),
        outcome=(sent, stays_open(claim_id, "the corrected claim is pending with the payer")),
        keeps=claim_id,
        corrects=tuple(fields),
        evidence=grounded(claim_id, "submit_replacement_claim", constraints),
    )


def new_claim(claim_id: str, reason: str, **constraints: Any) -> Intent:
    """A new original claim (frequency 1) in place of one the payer never adjudicated."""
    rule = need("submit_new_claim", reason, claim_id=claim_id, **constraints)
    fields = {path.removeprefix("corrections."): want for path, want in constraints.items()}
    sent = fact(
        "new_claim_sent",
        f"a new claim (frequency 1, no original control number) takes the place of {claim_id}: {reason}",
        "claims",
        resubmits_claim_id=claim_id,
        frequency_code="1",
        original_claim_control_number=None,
        new=True,
        **fields,
    )
    return Intent(
        "new_claim",
        (rule,),
        allowed=("submit_new_claim",),
        outcome=(sent, stays_open(claim_id, "the new claim is pending with the payer")),
        keeps=claim_id,
        corrects=tuple(fields),
        evidence=grounded(claim_id, "submit_new_claim", constraints),
    )


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
    outcome = [
        fact(
            "appeal_filed",
            f"one appeal of {claim_id} on {basis}",
            "appeals",
            claim_id=claim_id,
            basis=basis,
            new=True,
        ),
        *(
            fact(
                f"appeal_attaches:{doc.lower()}",
                f"the appeal carries {doc}, the evidence the denial calls for",
                "appeals",
                None,
                claim_id=claim_id,
                new=True,
                attachment_document_ids={"$contains": doc},
            )
            for doc in attach
        ),
        stays_open(claim_id, "closing a claim while its appeal is pending abandons the appeal"),
    ]
    evidence = tuple(
        read_doc(doc, f"the appeal rests on {doc}, which must have been read", claim_id, "submit_appeal")
        for doc in attach
    )
    return Intent(
        "appeal", tuple(rules), allowed=("submit_appeal",), outcome=tuple(outcome), evidence=evidence
    )


def escalation(claim_id: str, queue: str | tuple[str, ...], **extra: Any) -> Intent:
    """A hand-off to a human in `queue` (or any of several acceptable queues)."""
    queues = (queue,) if isinstance(queue, str) else queue
    wanted: Any = queues[0] if len(queues) == 1 else {"$in": list(queues)}
    names = " or ".join(queues)
    rule = need(
        "escalate_to_human", f"a human in {names} must decide", claim_id=claim_id, queue=wanted, **extra
    )
    amount = extra.pop("amount", None)
    handed = Assertion(
        name="escalated",
        reason=f"the case is handed to {names}",
        collection="escalations",
        where={"claim_id": claim_id, "queue": wanted, "new": True, **extra},
        min_count=1,
        max_count=1,
        total_of="amount" if amount is not None else None,
        total=amount,
    )
    return Intent(
        f"escalate:{'|'.join(queues)}",
        (rule,),
        must_escalate=True,
        allowed=("escalate_to_human",),
        outcome=(handed,),
    )


def human_review(claim_id: str) -> Intent:
    """A remittance the desk cannot resolve: billing or a supervisor decides, and the desk asks for
    a review rather than recommending an outcome it could not determine (a write-off of a claim
    nobody understood loses money that may be owed)."""
    return escalation(claim_id, ("billing", "supervisor"), recommended_action="review")


def write_off(claim_id: str, reason_code: str, amount: float, limit: float) -> Intent:
    """A write-off, or the supervisor's approval of one when it passes the limit (a contractual
    adjustment at the contracted rate is not discretionary and never needs approval)."""
    if amount > limit + 0.005 and reason_code != "contractual":
        return escalation(claim_id, "supervisor", recommended_action="write_off", amount=round(amount, 2))
    rule = need("post_write_off", f"write off as {reason_code}", claim_id=claim_id, reason_code=reason_code)
    posted = Assertion(
        name=f"written_off:{reason_code}",
        reason=f"${amount:.2f} of {claim_id} is written off as {reason_code}, in one posting or several",
        collection="write_offs",
        where={"claim_id": claim_id, "reason_code": reason_code, "new": True},
        total_of="amount",
        total=round(amount, 2),
    )
    return Intent("write_off", (rule,), allowed=("post_write_off", "close_claim"), outcome=(posted,))


def transfer(claim_id: str, reason: str) -> Intent:
    """The patient's share moves to the patient; `envs.rcm.specs` sets the amount from the remittance."""
    rule = need(
        "transfer_to_patient_responsibility",
        f"the patient owes it ({reason})",
        claim_id=claim_id,
        reason=reason,
    )
    billed = Assertion(
        name=f"patient_billed:{reason}",
        reason=f"the patient's share of {claim_id} ({reason}) is billed to the patient",
        collection="patient_transfers",
        where={"claim_id": claim_id, "reason": reason, "new": True},
        total_of="amount",
    )
    return Intent(
        "patient",
        (rule,),
        allowed=("transfer_to_patient_responsibility", "close_claim"),
        outcome=(billed,),
    )


def bill_secondary(claim_id: str, primary: str, payer_id: str) -> Intent:
    """The patient's share under the primary goes to the active secondary first, on a claim that
    carries the primary's adjudication; the patient is not billed (yet)."""
    intent = bill_other(claim_id, payer_id, "secondary")
    carried = fact(
        "primary_adjudication_carried",
        f"the claim to {payer_id} carries {primary}'s adjudication (paid amount, adjustments)",
        "claims",
        billed_from_claim_id=claim_id,
        payer_id=payer_id,
        prior_payer_id=primary,
        new=True,
    )
    waits = stays_open(claim_id, "the patient's share is pending with the secondary payer")
    return Intent(
        "bill_secondary",
        intent.required,
        allowed=intent.allowed,
        outcome=(*intent.outcome, carried, waits),
        evidence=intent.evidence,
    )


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
    billed = fact(
        "other_payer_billed",
        f"{payer_id} is billed as {sequence} for the service on {claim_id}",
        "claims",
        billed_from_claim_id=claim_id,
        payer_id=payer_id,
        payer_sequence=sequence,
        frequency_code="1",
        new=True,
    )
    coverage = seen(
        "coverage",
        f"eligibility shows {payer_id} covering the service",
        "check_eligibility",
        claim_id,
        before=("bill_other_payer",),
        returns=(payer_id,),
    )
    return Intent(
        "bill_other_payer", rules, allowed=("bill_other_payer",), outcome=(billed,), evidence=(coverage,)
    )


def close_duplicate(claim_id: str, in_process: bool = False) -> Intent:
    """CO-18: close the duplicate; its original was paid, or is still in process with the payer (it
    will be paid or denied on its own: a resubmission would only be another duplicate)."""
    reason = "duplicate_of_original_in_process" if in_process else "duplicate_of_paid_original"
    state = "still in process" if in_process else "paid"
    rules = (
        need("find_original_claim", "look up the original before closing a duplicate", claim_id=claim_id),
        need("close_claim", f"the original is {state}", claim_id=claim_id, reason=reason),
    )
    closed = fact(
        "duplicate_closed",
        f"{claim_id} is closed as a duplicate of an original {state}",
        "claims",
        claim_id=claim_id,
        closed_now=True,
        closed_reason=reason,
    )
    original = seen(
        "original_found",
        f"the original is {state}, which only find_original_claim shows",
        "find_original_claim",
        claim_id,
        before=("close_claim",),
        claim_id=claim_id,
    )
    return Intent("close", rules, allowed=("close_claim",), outcome=(closed,), evidence=(original,))


def retro_auth(claim_id: str, approved: bool) -> Intent:
    """Request retro-authorization; resubmit with the number when it is approved at once."""
    rules = [need("request_authorization", "the payer allows retro-authorization", claim_id=claim_id)]
    allowed: tuple[str, ...] = ("request_authorization",)
    outcome = [
        fact(
            "retro_auth_requested",
            f"one retro-authorization is requested for {claim_id}",
            "authorizations",
            claim_id=claim_id,
            retro=True,
            new=True,
        )
    ]
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
        outcome.append(
            fact(
                "replacement_sent",
                f"a corrected claim replaces {claim_id} with the approved authorization's number",
                "claims",
                replaces_claim_id=claim_id,
                frequency_code="7",
                new=True,
                auth_on_file=True,
                prior_auth_number={"$ne": None},
            )
        )
        outcome.append(stays_open(claim_id, "the corrected claim is pending with the payer"))
        return Intent(
            "retro_auth",
            tuple(rules),
            allowed=allowed,
            outcome=tuple(outcome),
            keeps=claim_id,
            corrects=("prior_auth_number",),
        )
    outcome.append(stays_open(claim_id, "the authorization decision is pending"))
    return Intent("retro_auth", tuple(rules), allowed=allowed, outcome=tuple(outcome))


def underpayment(claim_id: str, payer_id: str, contractual: float) -> Intent:
    """CO-45 below the contracted rate: appeal the underpayment citing the fee schedule; the true
    contractual part (charge less the contracted rate) may be posted now or left for the payer's
    answer, but nothing of what the payer still owes is written off."""
    rules = (
        need("get_payer_rules", "read the contracted rate", payer_id=payer_id),
        need(
            "submit_appeal",
            "the payer allowed less than the contract",
            claim_id=claim_id,
            basis="underpayment",
        ),
    )
    appealed = fact(
        "appeal_filed",
        f"one appeal of {claim_id} on underpayment",
        "appeals",
        claim_id=claim_id,
        basis="underpayment",
        new=True,
    )
    left = Resolution(
        name="appeal_only",
        reason="the appeal goes out; the balance waits for the payer's answer",
        assertions=(
            Assertion(
                name="nothing_written_off",
                reason="writing off what the contract says the payer owes loses revenue",
                collection="write_offs",
                where={"claim_id": claim_id, "new": True},
                min_count=0,
                max_count=0,
            ),
        ),
    )
    posted = Resolution(
        name="contractual_and_appeal",
        reason="the charge above the contracted rate is contractual and posted; the shortfall is appealed",
        assertions=(
            Assertion(
                name="written_off:contractual",
                reason=f"${contractual:.2f} (the charge less the contracted rate) is written off as contractual",
                collection="write_offs",
                where={"claim_id": claim_id, "reason_code": "contractual", "new": True},
                total_of="amount",
                total=round(contractual, 2),
            ),
            Assertion(
                name="nothing_else_written_off",
                reason="writing off what the contract says the payer owes loses revenue",
                collection="write_offs",
                where={"claim_id": claim_id, "reason_code": {"$ne": "contractual"}, "new": True},
                min_count=0,
                max_count=0,
            ),
        ),
    )
    return Intent(
        "underpayment",
        rules,
        allowed=("submit_appeal", "post_write_off"),
        outcome=(
            appealed,
            stays_open(claim_id, "closing a claim while its appeal is pending abandons the appeal"),
        ),
        resolutions=(left, posted),
        evidence=(
            rules_read(
                payer_id,
                "the contracted rate on the fee schedule shows the shortfall",
                claim_id,
                "submit_appeal",
                "post_write_off",
            ),
        ),
    )
