"""Twin edits of what the patient's share and a duplicate's original call for: a secondary plan
active or ended on the date of service, the original's chart recording no coding, the original paid.
Like every twin edit (`envs.rcm.twin_edits`), none changes what a blind desk reads."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

from adapters.rcm import World
from adapters.rcm.era import build_remittance
from envs.rcm import intents as want
from envs.rcm.casekit import Case
from envs.rcm.deciding import contract_read, read_doc
from envs.rcm.twin_documents import chart_without_coding
from envs.rcm.vocab import COMMERCIAL
from envs.rcm.vocab import member_id as make_member_id
from envs.rcm.world_edits import carcs_of, is_active, notice_date, with_coverage

SHARES = {"1": "deductible", "2": "coinsurance", "3": "copay"}
"""PR CARC → the patient share's reason."""


def _patient_shares(world: World, claim_id: str) -> tuple[float, dict[str, float]]:
    """(the CO-45 total, PR CARC → amount) of the claim's latest remittance."""
    remit = world.latest_remittance(claim_id)
    adjustments = [a for line in (remit.lines if remit else ()) for a in line.adjustments]
    shares: dict[str, float] = {}
    for a in adjustments:
        if a.group_code == "PR" and a.reason_code in SHARES:
            shares[a.reason_code] = round(shares.get(a.reason_code, 0.0) + a.amount, 2)
    contractual = sum(a.amount for a in adjustments if (a.group_code, a.reason_code) == ("CO", "45"))
    return round(contractual, 2), shares


def secondary_active(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The patient has an active secondary (a spouse's commercial plan) on the date of service: the
    coinsurance goes to it on a claim carrying the primary's adjudication, not to the patient; the
    contractual part is written off either way."""
    world = case.world
    claim = world.claims[case.claim_id]
    contractual, shares = _patient_shares(world, claim.claim_id)
    mine = [c for c in world.coverages.values() if c.patient_id == claim.patient_id]
    if contractual < 0.01 or not shares or len(mine) != 1:
        return None
    payer_id = rng.choice([p for p in COMMERCIAL if p != claim.payer_id])
    payer, patient = world.payers[payer_id], world.patients[claim.patient_id]
    coverage_id = next(
        c for c in (f"COV-{rng.randrange(10000, 100000)}" for _ in range(100)) if c not in world.coverages
    )
    added = mine[0].model_copy(
        update={
            "coverage_id": coverage_id,
            "payer_id": payer_id,
            "member_id": make_member_id(rng, payer),
            "group_number": f"GRP-{payer_id}-{rng.randrange(100, 999)}",
            "plan_name": f"{payer.name} {rng.choice(('Gold', 'Silver', 'Standard', 'Plus'))}",
            "subscriber_first_name": patient.first_name,
            "start_date": claim.first_service_date - timedelta(days=rng.randrange(200, 1500)),
            "end_date": None,
            "cob_order": "secondary",
        }
    )
    limit = world.practice.write_off_approval_limit
    intent = want.write_off(claim.claim_id, "contractual", contractual, limit).citing(
        contract_read(claim.payer_id, claim.claim_id)
    ) + want.bill_secondary(claim.claim_id, claim.payer_id, payer_id)
    return replace(case, world=with_coverage(world, added), intent=intent)


def secondary_ended(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The spouse's secondary plan ended before the date of service: the patient's share is the
    patient's, and the contractual part is written off."""
    world = case.world
    claim = world.claims[case.claim_id]
    dos = claim.first_service_date
    contractual, shares = _patient_shares(world, claim.claim_id)
    second = [
        c
        for c in world.coverages.values()
        if c.patient_id == claim.patient_id and c.cob_order == "secondary" and is_active(c, dos)
    ]
    if len(second) != 1 or contractual < 0.01 or not shares:
        return None
    ended = dos - timedelta(days=rng.randrange(5, 90))
    if ended <= second[0].start_date:
        return None
    world = with_coverage(world, second[0].model_copy(update={"end_date": ended}))
    limit = world.practice.write_off_approval_limit
    intent = want.write_off(claim.claim_id, "contractual", contractual, limit).citing(
        contract_read(claim.payer_id, claim.claim_id)
    )
    for carc in shares:
        intent = want.transfer(claim.claim_id, SHARES[carc]) + intent
    return replace(case, world=world, intent=intent)


def original_coding_not_recorded(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The duplicate's denied original (CO-16 N290) has a chart that records no coding and names no
    provider: the original's fix is a coder's, so it is escalated to coding."""
    world = case.world
    claim = world.claims[case.claim_id]
    originals = [
        c.claim_id
        for c in world.claims.values()
        if c.claim_id != claim.claim_id
        and c.patient_id == claim.patient_id
        and "16" in carcs_of(world, c.claim_id)
    ]
    if len(originals) != 1:
        return None
    made = chart_without_coding(world, originals[0])
    if made is None:
        return None
    world, chart_id = made
    empty = read_doc(
        chart_id,
        "the original's chart records no coding or provider to correct from",
        originals[0],
        "escalate_to_human",
    )
    find = want.Intent(
        "find", (want.need("find_original_claim", "find the original", claim_id=claim.claim_id),)
    )
    return replace(case, world=world, intent=find + want.escalation(originals[0], "coding").citing(empty))


def original_paid(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The duplicate's original was paid (an 835 with its contractual adjustment) before the
    duplicate was denied: the duplicate is closed as one of a paid original."""
    world = case.world
    claim = world.claims[case.claim_id]
    lines = [(ln.procedure_code, ln.service_date) for ln in claim.lines]
    originals = [
        c
        for c in world.claims.values()
        if c.claim_id != claim.claim_id
        and c.patient_id == claim.patient_id
        and c.status in ("accepted", "pending")
        and [(ln.procedure_code, ln.service_date) for ln in c.lines] == lines
    ]
    denied = notice_date(world, claim.claim_id)
    if len(originals) != 1 or originals[0].submitted_date is None or len(claim.lines) != 1:
        return None
    original = originals[0]
    paid_on = min(original.submitted_date + timedelta(days=rng.randrange(2, 5)), denied)
    contractual = round(original.total_charge * rng.uniform(0.15, 0.45), 2)
    remit = build_remittance(
        original,
        remittance_id=next(
            r for r in (f"ERA{rng.randrange(10**7, 10**8)}" for _ in range(100)) if r not in world.remittances
        ),
        produced=paid_on,
        filing_indicator=world.payers[original.payer_id].claim_filing_indicator,
        adjustments={1: [("CO", "45", contractual)]},
    )
    claims = {**world.claims, original.claim_id: original.model_copy(update={"status": "partially_paid"})}
    world = world.model_copy(
        update={"claims": claims, "remittances": {**world.remittances, remit.remittance_id: remit}}
    )
    return replace(case, world=world, intent=want.close_duplicate(claim.claim_id))
