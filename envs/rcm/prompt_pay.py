"""Prompt-pay interest: many states require interest on a clean claim paid after a statutory number
of days from its receipt (often 30 to 45). The days run from the receipt, the date the payer's
277CA accepted the claim, not from the date of service; the interest is requested from the payer
(an appeal on `prompt_pay_interest`), never posted as a write-off, and nothing is owed when the 835
already carries it (PLB L6).

The reference's check (`interest_request`) and the generator family (`prompt_pay_case`): a clean
claim paid at the contracted rate, the contractual part posted as usual, and the interest asked for
only when the payer's rule, measured from the receipt, was missed.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from adapters.rcm.models import ProviderAdjustment
from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx
from envs.rcm.deciding import contract_read
from envs.rcm.vocab import OFFICE_VISITS
from envs.rcm.worldgen import LineSpec

INTEREST = "L6"
"""PLB reason of interest the payer adds to a payment."""
CODES = (*OFFICE_VISITS, "93000", "20610")


def receipt_date(claim: dict[str, Any]) -> date | None:
    """The date the payer's 277CA last accepted the claim (its receipt), or None."""
    accepted = [a for a in claim.get("acknowledgments") or [] if a.get("action") == "accepted"]
    return date.fromisoformat(str(accepted[-1]["ack_date"])) if accepted else None


def interest_request(claim: dict[str, Any], remit: dict[str, Any], rules: dict[str, Any]) -> str | None:
    """The request for prompt-pay interest a clean claim's payment calls for, or None: no rule, the
    payment inside the limit counted from the receipt, interest already on the 835 (PLB L6), or not
    the claim's own first payment (a reversal and its correction re-adjudicate a paid claim)."""
    days = rules.get("prompt_pay_days")
    received = receipt_date(claim)
    paid = float(remit.get("paid_amount") or 0)
    if not isinstance(days, int) or received is None or paid <= 0 or remit.get("trace_number"):
        return None
    if any(p.get("reason_code") == INTEREST for p in remit.get("provider_adjustments") or []):
        return None
    paid_on = date.fromisoformat(str(remit["production_date"]))
    if paid_on <= received + timedelta(days=days):
        return None
    rate = float(rules.get("prompt_pay_interest_rate") or 0)
    yearly = f" at {rate:.0%} a year" if rate else ""
    return (
        f"The claim was received on {received.isoformat()} (277CA acceptance) and paid ${paid:,.2f} on "
        f"{paid_on.isoformat()}, after the {days}-day prompt-pay limit that runs from receipt. Interest"
        f"{yearly} is owed on the late payment: please pay it."
    )


def ask_interest(claim_id: str, payer_id: str, received: date) -> want.Intent:
    """The interest request: an appeal on `prompt_pay_interest`, after the payer's rule and the
    receipt date were read; the claim stays open until the payer answers."""
    asked = want.fact(
        "interest_requested",
        f"prompt-pay interest on {claim_id} is requested from the payer",
        "appeals",
        claim_id=claim_id,
        basis="prompt_pay_interest",
        new=True,
    )
    rule = want.rules_read(
        payer_id,
        "the payer's prompt-pay limit, measured from the receipt, was missed",
        claim_id,
        "submit_appeal",
    )
    receipt = want.seen(
        "receipt_277ca",
        f"the 277CA accepted the claim on {received.isoformat()}: the prompt-pay days run from there",
        None,
        claim_id,
        before=("submit_appeal",),
        returns=(received.isoformat(),),
    )
    return want.Intent(
        "prompt_pay_interest",
        (want.need("submit_appeal", "interest is owed", claim_id=claim_id, basis="prompt_pay_interest"),),
        allowed=("submit_appeal",),
        outcome=(asked, want.stays_open(claim_id, "the interest request is pending with the payer")),
        evidence=(rule, receipt),
    )


def prompt_pay_case(ctx: Ctx, owed: bool | None = None) -> Case:
    """A clean claim paid at the contracted rate some weeks after its receipt, under a payer's
    prompt-pay rule of 30 or 45 days. Variants: paid between the two limits (the rule decides:
    `late` or `in_time`), paid within the limit from receipt but long after the service
    (`from_receipt`), and paid late with the interest on the 835 (`interest_paid`). `owed` makes it
    a between-the-limits draw under the 30-day (True) or the 45-day rule (twins: the same draw)."""
    rng, b = ctx.rng, ctx.b
    variant = rng.choices(("between", "from_receipt", "interest_paid"), (6, 2, 2))[0]
    if owed is not None:
        variant = "between"
    rate = rng.choice((0.09, 0.12, 0.18))
    if variant == "between":
        after = rng.randrange(31, 45)
        drawn = rng.random() < 0.5
        limit = 30 if (drawn if owed is None else owed) else 45
    elif variant == "from_receipt":
        limit = rng.choice((30, 45))
        after = rng.randrange(8, limit)
    else:
        limit = rng.choice((30, 45))
        after = rng.randrange(limit + 3, limit + 40)
    b.change_rules(ctx.payer_id, prompt_pay_days=limit, prompt_pay_interest_rate=rate)
    paid_on = b.ago(rng.randrange(3, 30))
    received = paid_on - timedelta(days=after)
    served = received - timedelta(
        days=rng.randrange(30, 70) if variant == "from_receipt" else rng.randrange(2, 9)
    )
    code = rng.choice(CODES)
    claim = b.claim(
        ctx.patient, ctx.payer_id, [LineSpec(code)], served, submitted=received, accepted=received
    )
    contracted = round(claim.total_charge * rng.uniform(0.55, 0.85), 2)
    b.contract(ctx.payer_id, code, contracted)
    contractual = round(claim.total_charge - contracted, 2)
    remit = b.remit(claim, paid_on, {1: [("CO", "45", contractual)]})
    if variant == "interest_paid":
        interest = round(contracted * rate * (after - limit) / 365, 2)
        plb = ProviderAdjustment(
            reason_code=INTEREST, reference=remit.payer_claim_control_number, amount=-interest
        )
        b.remittances[remit.remittance_id] = remit.model_copy(update={"provider_adjustments": (plb,)})
    intent = want.write_off(claim.claim_id, "contractual", contractual, b.limit).citing(
        contract_read(ctx.payer_id, claim.claim_id)
    )
    late = variant == "between" and limit == 30
    if late:
        intent = intent + ask_interest(claim.claim_id, ctx.payer_id, received)
    name = {"between": "late" if late else "in_time"}.get(variant, variant)
    return ctx.case(claim, intent, f"variant:{name}", f"prompt_pay:{limit}")
