"""Reversals and take-backs: one 835 reverses a payment already posted (CLP02 22, every amount
negated) and pays the claim again as corrected, for less; the check cannot cover the difference, so
a negative forwarding balance (PLB FB) carries the take-back to a later 835.

Posting works on the net change and counts what was already posted: the first payment's CO-45 is
on the books, so only the difference is written off, and only when the corrected payment is what
the contract pays. When the fee schedule says the first payment was the contracted rate, the
take-back is not supported: it is disputed as an underpayment and nothing more is written off. The
835, the claim and the document list read the same either way; only the payer's fee schedule tells
the two apart.
"""

from __future__ import annotations

from datetime import timedelta

from adapters.rcm.era import reversal_and_correction
from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx
from envs.rcm.vocab import OFFICE_VISITS
from envs.rcm.worldgen import LineSpec
from schemas.tasks import Assertion

CODES = (*OFFICE_VISITS, "72148", "20610", "93000")


def dispute_take_back(claim_id: str, payer_id: str) -> want.Intent:
    """A take-back below the contracted rate: appeal it as an underpayment, citing the fee schedule;
    nothing is written off (the first payment's contractual part is already posted)."""
    rules = (
        want.need("get_payer_rules", "read the contracted rate", payer_id=payer_id),
        want.need(
            "submit_appeal",
            "the corrected payment is below the contract: the take-back is disputed",
            claim_id=claim_id,
            basis="underpayment",
        ),
    )
    appealed = want.fact(
        "take_back_disputed",
        f"one appeal of {claim_id} on underpayment disputes the take-back",
        "appeals",
        claim_id=claim_id,
        basis="underpayment",
        new=True,
    )
    nothing = Assertion(
        name="take_back_not_posted",
        reason="writing off a take-back the contract does not support loses what the payer owes",
        collection="write_offs",
        where={"claim_id": claim_id, "new": True},
        min_count=0,
        max_count=0,
    )
    fee_schedule = want.rules_read(
        payer_id,
        "the fee schedule shows the first payment was the contracted rate: the take-back is not supported",
        claim_id,
        "submit_appeal",
        *want.WRITE_OFF,
    )
    return want.Intent(
        "dispute_take_back",
        rules,
        allowed=("submit_appeal",),
        outcome=(appealed, nothing, want.stays_open(claim_id, "the dispute is pending with the payer")),
        evidence=(fee_schedule,),
    )


def reversal_take_back(ctx: Ctx, supported: bool | None = None) -> Case:
    """A posted payment reversed and paid again for less on one 835 (see the module docstring);
    `supported` forces whether the contract supports the take-back (the draw is the same either
    way, so forcing it both ways gives twins)."""
    rng, b = ctx.rng, ctx.b
    code = rng.choice(CODES)
    first_paid = b.ago(rng.randrange(35, 80))
    dos = first_paid - timedelta(days=rng.randrange(10, 30))
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code)], dos)
    charge = claim.total_charge
    high = round(charge * rng.uniform(0.6, 0.85), 2)
    low = round(high * rng.uniform(0.7, 0.92), 2)
    drawn = rng.random() < 0.5
    supported = drawn if supported is None else supported
    b.contract(ctx.payer_id, code, low if supported else high)
    earlier = b.remit(claim, first_paid, {1: [("CO", "45", round(charge - high, 2))]})
    b.posted_contractual(claim, round(charge - high, 2), first_paid)
    produced = b.ago(rng.randrange(1, 20))
    pair = reversal_and_correction(
        claim,
        earlier,
        trace=b.new_id("ERA", 8),
        produced=produced,
        adjustments={1: [("CO", "45", round(charge - low, 2))]},
    )
    b.remittances.update({r.remittance_id: r for r in pair})
    b.claims[claim.claim_id] = claim.model_copy(update={"status": "partially_paid"})
    if not supported:
        intent = dispute_take_back(claim.claim_id, ctx.payer_id)
        return ctx.case(claim, intent, "variant:take_back_unsupported")
    net = round(high - low, 2)
    contract = want.rules_read(
        ctx.payer_id,
        "the fee schedule shows the corrected payment is the contracted rate: the take-back stands",
        claim.claim_id,
        *want.WRITE_OFF,
    )
    intent = want.write_off(claim.claim_id, "contractual", net, b.limit).citing(contract)
    return ctx.case(claim, intent, "variant:take_back_supported")
