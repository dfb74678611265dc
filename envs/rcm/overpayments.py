"""Overpayments: the payer paid a claim twice, so the claim carries a credit balance (money the
practice owes back). Nothing is written off and the claim is not closed as paid: billing refunds
it, or leaves it to the payer's offset against a later remittance (PLB WO) when the payer's letter
says it will recover it that way (`overpayments.json`); otherwise it is refunded.

The reference's handling (`work_overpayment`) and the generator family (`overpayment_case`).
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from functools import cache
from importlib.resources import files

from adapters.rcm.era import build_remittance
from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx, twin_variant
from envs.rcm.desk import Desk, Facts, Script
from envs.rcm.vocab import OFFICE_VISITS
from envs.rcm.worldgen import LineSpec

LETTER = "Payer correspondence"
"""Title of the payer's letter on file (the same in every variant: its text decides)."""


@cache
def _patterns() -> dict[str, tuple[re.Pattern[str], ...]]:
    raw = json.loads(files("envs.rcm").joinpath("overpayments.json").read_text(encoding="utf-8"))
    return {key: tuple(re.compile(p, re.IGNORECASE) for p in raw[key]) for key in ("offset", "refund")}


def recovery(text: str) -> str | None:
    """`offset` when a letter says the payer recovers the overpayment from a later remittance,
    `refund` when it asks for a refund, None when it says neither."""
    patterns = _patterns()
    if any(p.search(text) for p in patterns["refund"]):
        return "refund"
    if any(p.search(text) for p in patterns["offset"]):
        return "offset"
    return None


def work_overpayment(desk: Desk, facts: Facts) -> Script:
    """A credit balance: read the payer's letters; billing leaves it to the payer's offset when one
    says so, and refunds it otherwise. Nothing is written off, the claim is not closed."""
    found = yield from desk.read("get_documents", claim_id=facts.claim_id)
    said: str | None = None
    letter = ""
    for summary in (found or {}).get("documents", []):
        if summary.get("kind") != "other":
            continue
        full = yield from desk.read("read_document", document_id=summary["document_id"])
        said = recovery(str(((full or {}).get("document") or {}).get("text") or "")) or said
        letter = str(summary["document_id"])
        if said is not None:
            break
    credit = round(-facts.balance, 2)
    paid = [f"{r['remittance_id']} on {r['production_date']}" for r in [facts.remit]]
    if said == "offset":
        why = (
            f"overpayment: a credit balance of ${credit:.2f}, the claim paid again ({', '.join(paid)}). "
            f"The payer's letter {letter} says it recovers it by offset from a later remittance: "
            "do not refund it; match the offset (PLB WO) when it arrives, then close."
        )
        return (yield from desk.escalate(facts.claim_id, "billing", "offset", why, -credit))
    source = (
        f"the payer's letter {letter} asks for a refund"
        if said == "refund"
        else "no payer letter says it will offset it"
    )
    why = (
        f"overpayment: a credit balance of ${credit:.2f}, the claim paid again ({', '.join(paid)}); "
        f"{source}: refund ${credit:.2f} to the payer."
    )
    return (yield from desk.escalate(facts.claim_id, "billing", "refund", why, -credit))


def overpayment_case(ctx: Ctx, offset: bool | None = None) -> Case:
    """A claim paid twice: its first payment posted (CO-45 written off), then a second 835 pays it
    again. The payer's letter on file says it will offset it (`offset`) or asks for a refund
    (`refund_requested`); `offset` forces one or the other from the same draw (twins)."""
    rng, b = ctx.rng, ctx.b
    variant = twin_variant(rng, "offset", "refund_requested", offset)
    first_paid = b.ago(rng.randrange(30, 70))
    dos = first_paid - timedelta(days=rng.randrange(8, 25))
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(rng.choice(OFFICE_VISITS))], dos)
    contractual = round(claim.total_charge * rng.uniform(0.2, 0.45), 2)
    first = b.remit(claim, first_paid, {1: [("CO", "45", contractual)]})
    b.posted_contractual(claim, contractual, first_paid)
    again = b.ago(rng.randrange(5, 25))
    duplicate = build_remittance(
        claim,
        remittance_id=b.new_id("ERA", 8),
        produced=again,
        filing_indicator=first.claim_filing_indicator,
        adjustments={1: [("CO", "45", contractual)]},
    )
    b.remittances[duplicate.remittance_id] = duplicate
    b.claims[claim.claim_id] = b.claims[claim.claim_id].model_copy(update={"status": "paid"})
    paid = first.paid_amount
    head = (
        f"Re: claim {claim.claim_id}, payer claim control number {first.payer_claim_control_number}. "
        f"Our records show the claim was paid twice, ${paid:.2f} on {first_paid.isoformat()} and again on "
        f"{again.isoformat()}."
    )
    letters = {
        "offset": f"{head} We will recover the duplicate payment of ${paid:.2f} by offset from a future "
        "remittance; no refund is needed.",
        "refund_requested": f"{head} Please refund the duplicate payment of ${paid:.2f} within 60 days of "
        "this letter; do not wait for an offset.",
    }
    sent = min(b.today, again + timedelta(days=2))
    doc = b.document(ctx.patient, claim, "other", LETTER, letters[variant], day=sent)
    read = want.read_doc(
        doc.document_id,
        "the payer's letter says how it recovers the overpayment",
        claim.claim_id,
        "escalate_to_human",
    )
    action = "offset" if variant == "offset" else "refund"
    intent = want.escalation(claim.claim_id, "billing", recommended_action=action, amount=-paid).citing(read)
    return ctx.case(claim, intent, f"variant:{variant}")
