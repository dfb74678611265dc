"""A negotiated discount: CO-131 (a claim-specific negotiated discount) is one of the contractual
reason codes beyond 45. When the allowed amount it leaves is the contracted rate on the payer's fee
schedule, it is a contractual adjustment, posted whatever its size: it is not a discretionary
write-off and needs no supervisor. When it takes the allowed amount below the contracted rate, it
does not match the contract: the shortfall is appealed as an underpayment and nothing of it is
written off. The 835, the claim and the document list are the same either way; only the payer's
fee schedule tells the two apart.

The reference posts or appeals it as it does a CO-45 (`solver.settle`, `desk.CONTRACTUAL`); the sim
counts it among the contractual codes (`adapters.rcm.ledger.CONTRACTUAL_CARCS`). This module is the
generator family (`discount_case`).
"""

from __future__ import annotations

from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx, recent, twin_variant
from envs.rcm.deciding import contract_read
from envs.rcm.worldgen import LineSpec

CARC_DISCOUNT = "131"
"""Claim-specific negotiated discount."""
_PRICED = ("72148", "70553", "45378", "29881")
"""Services whose discount usually passes the write-off approval limit."""


def discount_case(ctx: Ctx, matches: bool | None = None) -> Case:
    """A commercial claim discounted CO-131. The fee schedule puts the contracted rate at the allowed
    amount (`at_contract`) or above it (`below_contract`: the payer took more than the contract
    allows);
    `matches` forces one or the other from the same draw (twins)."""
    rng, b = ctx.rng, ctx.b
    variant = twin_variant(rng, "at_contract", "below_contract", matches)
    code = rng.choice(_PRICED)
    dos, produced = recent(ctx)
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code)], dos)
    # The 835 is the same either way (twins): only the contracted rate differs.
    allowed = round(claim.total_charge * rng.uniform(0.45, 0.7), 2)
    above = round(allowed / rng.uniform(0.6, 0.92), 2)
    rate = allowed if variant == "at_contract" else above
    b.contract(ctx.payer_id, code, rate)
    b.remit(claim, produced, {1: [("CO", CARC_DISCOUNT, round(claim.total_charge - allowed, 2))]})
    contractual = round(claim.total_charge - rate, 2)
    if variant == "at_contract":
        intent = want.write_off(claim.claim_id, "contractual", contractual, b.limit).citing(
            contract_read(ctx.payer_id, claim.claim_id)
        )
    else:
        intent = want.underpayment(claim.claim_id, ctx.payer_id, contractual)
    return ctx.case(claim, intent, f"variant:{variant}")
