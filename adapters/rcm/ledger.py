"""Claim balances: what was paid, written off, moved to the patient, and what the patient may owe.

Pure functions over a `World`; verifiers use them too, so "patient billed for a CO amount" means
the same thing to the domain logic and to whoever scores it.
"""

from __future__ import annotations

from collections.abc import Iterable

from adapters.rcm.models import Adjustment, Claim, Remittance
from adapters.rcm.world import World

# Amounts are compared with a half-cent tolerance: float sums of cents are not exact.
EPSILON = 0.005


def money(value: float) -> float:
    """`value` rounded to cents."""
    return round(value + 0.0, 2)


def paid_total(world: World, claim_id: str) -> float:
    """Sum paid on the claim across its remittances (reversals carry negative amounts)."""
    return money(sum(r.paid_amount for r in world.remittances.values() if r.claim_id == claim_id))


def written_off(world: World, claim_id: str) -> float:
    return money(sum(w.amount for w in world.write_offs.values() if w.claim_id == claim_id))


def transferred(world: World, claim_id: str) -> float:
    return money(sum(t.amount for t in world.patient_transfers.values() if t.claim_id == claim_id))


def insurance_balance(world: World, claim: Claim) -> float:
    """Charge not yet paid, written off, or moved to the patient."""
    claim_id = claim.claim_id
    return money(
        claim.total_charge
        - paid_total(world, claim_id)
        - written_off(world, claim_id)
        - transferred(world, claim_id)
    )


def all_adjustments(remittance: Remittance) -> Iterable[tuple[tuple[str, ...], Adjustment]]:
    """Every adjustment of a remittance with the modifiers of the line it sits on (claim level: none)."""
    for adjustment in remittance.claim_adjustments:
        yield (), adjustment
    for line in remittance.lines:
        for adjustment in line.adjustments:
            yield line.modifiers, adjustment


def patient_billable(world: World, claim: Claim) -> float:
    """What the latest remittance lets the practice bill the patient, before any transfer.

    PR adjustments are billable. A CO adjustment is not, with two exceptions the brief's CARC table
    names: CARC 50 on a line billed with modifier GA when a signed ABN is on file, and CARC 27
    when the patient has no other coverage on the date of service.
    """
    remittance = world.latest_remittance(claim.claim_id)
    if remittance is None:
        return 0.0
    has_abn = any(
        d.kind == "abn_waiver" and d.signed and d.patient_id == claim.patient_id
        for d in world.documents.values()
    )
    uncovered = not any(
        c.active_on(claim.first_service_date)
        for c in world.coverages.values()
        if c.patient_id == claim.patient_id
    )
    total = 0.0
    for modifiers, adj in all_adjustments(remittance):
        if (
            adj.group_code == "PR"
            or (adj.reason_code == "50" and "GA" in modifiers and has_abn)
            or (adj.reason_code == "27" and uncovered)
        ):
            total += adj.amount
    return money(total)
