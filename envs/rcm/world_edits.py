"""Small edits of an rcm world the twin edits share: a payer's rules, the coverage on file, and what
a claim's latest remittance and notice say."""

from __future__ import annotations

from datetime import date

from adapters.rcm import World
from adapters.rcm.models import Coverage
from envs.rcm import intents as want
from envs.rcm.deciding import WRITE_OFF, rules_read


def edited_rules(world: World, payer_id: str, **update: object) -> World | None:
    payer = world.payers[payer_id]
    if payer.rule_changes:
        return None  # a twin edits only undated rules
    edited = payer.model_copy(update={"rules": payer.rules.model_copy(update=update)})
    return world.model_copy(update={"payers": {**world.payers, payer_id: edited}})


def with_coverage(world: World, coverage: Coverage) -> World:
    return world.model_copy(update={"coverages": {**world.coverages, coverage.coverage_id: coverage}})


def is_active(coverage: Coverage, day: date) -> bool:
    return coverage.start_date <= day and (coverage.end_date is None or coverage.end_date >= day)


def carcs_of(world: World, claim_id: str) -> set[str]:
    remit = world.latest_remittance(claim_id)
    return {a.reason_code for line in (remit.lines if remit else ()) for a in line.adjustments}


def notice_date(world: World, claim_id: str) -> date:
    remit = world.latest_remittance(claim_id)
    assert remit is not None
    return remit.production_date


def retagged(tags: tuple[str, ...], prefix: str, value: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{value}" if t.startswith(prefix) else t for t in tags)


def necessity_intent(world: World, claim_id: str, *, open_window: bool, why: str) -> want.Intent:
    """CO-50 with records and a signed letter: the appeal while the window is open, else the
    write-off; the payer's rules decide either way."""
    claim = world.claims[claim_id]
    window = rules_read(claim.payer_id, why, claim_id, "submit_appeal", *WRITE_OFF)
    if not open_window:
        limit = world.practice.write_off_approval_limit
        intent = want.write_off(claim_id, "not_medically_necessary", claim.total_charge, limit)
        return intent.citing(window)
    docs = sorted(d.document_id for d in world.documents.values() if d.claim_id == claim_id)
    records = [d for d in docs if world.documents[d].kind == "medical_record"]
    letters = [d for d in docs if world.documents[d].kind == "letter_of_medical_necessity"]
    return want.appeal(claim_id, "medical_necessity", records + letters).citing(window)
