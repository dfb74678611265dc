"""Claim balances: what was paid, written off, moved to the patient, and what the patient may owe.

Pure functions over a `World`; verifiers use them too, so "patient billed for a CO amount" means
the same thing to the domain logic and to whoever scores it.
"""

from __future__ import annotations

from collections.abc import Iterable

from adapters.rcm.models import Adjustment, Claim, Coverage, RemitLine, Remittance
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


CONTRACTUAL_CARCS = frozenset({"45", "131", "253"})
"""CARCs a contract or a statute sets (fee schedule, negotiated discount, sequestration):
contractual adjustments, not discretionary write-offs, up to the contracted rate on file."""


def contracted_amount(world: World, claim: Claim, line_number: int) -> float | None:
    """The contracted allowed amount of one claim line (fee schedule rate times units), or None when the
    payer's fee schedule does not list its code."""
    line = next((x for x in claim.lines if x.line_number == line_number), None)
    payer = world.payers.get(claim.payer_id)
    if line is None or payer is None:
        return None
    rate = payer.rules_on(line.service_date).fee_schedule.get(line.procedure_code)
    return None if rate is None else money(rate * line.units)


def contractual_allowance(world: World, claim: Claim) -> float:
    """What the contract itself takes off the charge: the contractual adjustments (CO-45, CO-253)
    of the latest remittance; on a line whose contracted rate is on file, never more than the charge
    less that rate (a payer that allowed less than the contract underpaid; that part is owed)."""
    remittance = world.latest_remittance(claim.claim_id)
    if remittance is None:
        return 0.0
    total = 0.0
    for line in remittance.lines:
        posted = sum(
            a.amount for a in line.adjustments if a.group_code == "CO" and a.reason_code in CONTRACTUAL_CARCS
        )
        contracted = contracted_amount(world, claim, line.line_number)
        if contracted is not None:
            posted = min(posted, max(0.0, line.charge - contracted))
        total += posted
    total += sum(
        a.amount
        for a in remittance.claim_adjustments
        if a.group_code == "CO" and a.reason_code in CONTRACTUAL_CARCS
    )
    return money(total)


def underpaid(world: World, claim: Claim) -> float:
    """How far the latest remittance's allowed amounts (paid plus the patient's share) fall short of
    the contracted rates on file, summed over the lines; 0 without a fee schedule."""
    remittance = world.latest_remittance(claim.claim_id)
    if remittance is None:
        return 0.0
    short = 0.0
    for line in remittance.lines:
        contracted = contracted_amount(world, claim, line.line_number)
        if contracted is None:
            continue
        allowed = line.paid + sum(a.amount for a in line.adjustments if a.group_code == "PR")
        short += max(0.0, contracted - allowed)
    return money(short)


def discretionary(world: World, claim: Claim, amount: float = 0.0, reason_code: str = "") -> float:
    """The claim's write-offs that count against the approval limit, with one more of `amount`:
    every non-contractual write-off, and contractual ones only beyond the contractual allowance
    (a contractual adjustment at the contracted rate is not a judgement call)."""
    rows: list[tuple[float, str]] = [
        (w.amount, w.reason_code) for w in world.write_offs.values() if w.claim_id == claim.claim_id
    ]
    if amount:
        rows.append((amount, reason_code))
    contractual = sum(a for a, reason in rows if reason == "contractual")
    other = sum(a for a, reason in rows if reason != "contractual")
    return money(other + max(0.0, contractual - contractual_allowance(world, claim)))


def valid_abn(world: World, claim: Claim, line: RemitLine) -> bool:
    """Whether an ABN on file shifts the liability for `line` to the patient: given on or before
    the date of service, naming the service and why Medicare may not pay for it, and signed. A
    routine form, one for another service, or one signed afterwards does not."""
    return any(
        d.kind == "abn_waiver"
        and d.patient_id == claim.patient_id
        and d.signed
        and d.document_date <= line.service_date
        and line.procedure_code in d.procedure_codes
        and d.noncoverage_reason.strip() != ""
        for d in world.documents.values()
    )


_COB_RANK = {"primary": 0, "secondary": 1, "tertiary": 2}


def next_payer(world: World, claim: Claim) -> Coverage | None:
    """The patient's active coverage after the claim's payer in COB order on the date of service
    (the secondary of a primary claim), or None."""
    day = claim.first_service_date
    later = [
        c
        for c in world.coverages.values()
        if c.patient_id == claim.patient_id
        and c.payer_id != claim.payer_id
        and c.active_on(day)
        and _COB_RANK[c.cob_order] > _COB_RANK[claim.payer_sequence]
    ]
    later.sort(key=lambda c: (_COB_RANK[c.cob_order], c.payer_id, c.coverage_id))
    return later[0] if later else None


def patient_billable(world: World, claim: Claim, *, before_secondary: bool = False) -> float:
    """What the latest remittance lets the practice bill the patient, before any transfer.

    PR adjustments are billable. A CO adjustment is not, with two exceptions the brief's CARC table
    names: CARC 50 on a line billed with modifier GA when a valid ABN for it is on file
    (`valid_abn`), and CARC 27 when the patient has no other coverage on the date of service.
    With an active payer after this one in COB order, the patient's share goes to that payer first,
    so nothing is billable to the patient yet; `before_secondary=True` leaves that rule out (what
    the patient would owe without the secondary).
    """
    if not before_secondary and next_payer(world, claim) is not None:
        return 0.0
    remittance = world.latest_remittance(claim.claim_id)
    if remittance is None:
        return 0.0
    uncovered = not any(
        c.active_on(claim.first_service_date)
        for c in world.coverages.values()
        if c.patient_id == claim.patient_id
    )

    def billable(adj: Adjustment, line: RemitLine | None) -> bool:
        if adj.group_code == "PR" or (adj.reason_code == "27" and uncovered):
            return True
        return (
            adj.reason_code == "50"
            and line is not None
            and "GA" in line.modifiers
            and valid_abn(world, claim, line)
        )

    total = sum(adj.amount for adj in remittance.claim_adjustments if billable(adj, None))
    total += sum(adj.amount for line in remittance.lines for adj in line.adjustments if billable(adj, line))
    return money(total)
