"""Base distribution: one builder per row of the brief's CARC table, with realistic variety.

A builder draws a world around one denied or underpaid claim (payer, amounts, dates near and past
deadlines, PHI-bearing demographics) and says what its right handling is (`Intent`). Variants
within a row cover the brief's branches (auth on file or not, proof of filing or not, ...).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from envs.rcm import intents as want
from envs.rcm.casekit import (
    Builder,
    Case,
    Ctx,
    coded,
    recent,
    record,
    rejection,
    swap,
    swap_line,
    typo,
    visit,
)
from envs.rcm.charts import ABN_REASONS, abn_text, necessity_letter, timely_filing_proof
from envs.rcm.deciding import contract_read, coverage_ended, no_auth_path, retro_auth_facts
from envs.rcm.vocab import COMMERCIAL, NEEDS_AUTH, OFFICE_VISITS
from envs.rcm.worldgen import LineSpec
from envs.verifiers.evidence import VISIBLE_TAG

VISIBLE_SHARE = f"{VISIBLE_TAG}patient-share-on-the-835"
"""Tag of a task the 835 alone decides: a PR deductible, coinsurance or copay is the patient's."""


# -- CARC 16, 4, 31: corrected claims -----------------------------------------------------------------
def carc16(ctx: Ctx) -> Case:
    rng, b = ctx.rng, ctx.b
    rarc = rng.choice(("N290", "M51", "M76", "M77", "N382"))
    rule: dict[str, Any]
    dos, produced = recent(ctx)
    right = b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos, rendering=rng.choice(b.clinicians).npi)
    record(ctx, right, coded(right))
    if rarc == "N290":
        claim = swap(ctx, right, rendering_npi=b.practice.billing_npi)
        rule = {"corrections.rendering_npi": right.rendering_npi}
    elif rarc == "M51":
        claim = swap_line(ctx, right, 1, procedure_code=rng.choice(("99201", "99212", "99215")))
        rule = {"corrections.lines.0.procedure_code": right.lines[0].procedure_code}
    elif rarc == "M76":
        claim = swap(
            ctx,
            right,
            diagnosis_codes=tuple(d.split(".")[0] if "." in d else d[:-1] for d in right.diagnosis_codes),
        )
        rule = {"corrections.diagnosis_codes": list(right.diagnosis_codes)}
    elif rarc == "M77":
        claim = swap_line(ctx, right, 1, place_of_service="22")
        rule = {"corrections.lines.0.place_of_service": "11"}
    else:
        good = right.member_id
        claim = swap(ctx, right, member_id=typo(good))
        rule = {"corrections.member_id": good}
    # MA130: returned as unprocessable, never adjudicated: the fix goes out as a new claim.
    unprocessable = rng.random() < 0.3
    b.deny(claim, produced, "16", remarks=(rarc, "MA130") if unprocessable else (rarc,))
    why = f"fix what RARC {rarc} names"
    intent = (
        want.new_claim(claim.claim_id, why, **rule)
        if unprocessable
        else want.replacement(claim.claim_id, why, **rule)
    )
    return ctx.case(claim, intent, f"rarc:{rarc}", *(["rarc:MA130"] if unprocessable else []))


def carc4(ctx: Ctx) -> Case:
    rng, b = ctx.rng, ctx.b
    dos, produced = recent(ctx)
    if rng.random() < 0.5:
        code = rng.choice(("20610", "29881"))
        side = rng.choice(("RT", "LT"))
        right = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code, (side,))], dos)
        variant, mod = "laterality", side
    else:
        right = b.claim(
            ctx.patient, ctx.payer_id, [LineSpec(rng.choice(OFFICE_VISITS), ("25",)), LineSpec("17110")], dos
        )
        variant, mod = "e_m_25", "25"
    record(ctx, right, coded(right))
    claim = swap_line(ctx, right, 1, modifiers=())
    adjustments = {1: [("CO", "4", claim.lines[0].charge)]}
    b.remit(claim, produced, adjustments, {1: ("N822",)})
    intent = want.replacement(
        claim.claim_id, "add the missing modifier", **{"corrections.lines.0.modifiers": {"$contains": mod}}
    )
    return ctx.case(claim, intent, f"variant:{variant}")


def carc31(ctx: Ctx) -> Case:
    dos, produced = recent(ctx)
    right = ctx.b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos)
    good = right.member_id
    claim = swap(ctx, right, member_id=typo(good))
    ctx.b.deny(claim, produced, "31", remarks=("MA61",) if ctx.rng.random() < 0.5 else ())
    return ctx.case(
        claim, want.replacement(claim.claim_id, "correct the member id", **{"corrections.member_id": good})
    )


# -- CARC 15 / 197: authorization -----------------------------------------------------------------------
def authorization(ctx: Ctx, carc: str, *, on_file: bool = True) -> Case:
    rng, b = ctx.rng, ctx.b
    weights = (
        {"on_file": 6, "retro": 2, "appeal": 1, "write_off": 1}
        if carc == "15"
        else {"on_file": 2, "retro": 4, "appeal": 2, "write_off": 2}
    )
    if not on_file:
        weights["on_file"] = 0
    variant = rng.choices(list(weights), list(weights.values()))[0]
    window = b.payer(ctx.payer_id).rules.retro_auth_window_days
    if variant == "retro" and window == 0:
        variant = "appeal"
    code = rng.choice(NEEDS_AUTH)
    late = rng.randrange(3, window + 1) if variant == "retro" else rng.randrange(max(window + 2, 25), 100)
    dos = b.ago(late)
    appeal_days = b.payer(ctx.payer_id).rules.appeal_window_days
    produced = b.ago(rng.randrange(1, max(2, min(appeal_days - 3, late - 1))))  # appeal window still open
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code)], dos)
    record_id = record(ctx, claim, coded(claim))
    tags = [f"variant:{variant}"]
    if variant == "on_file":
        auth = b.authorization(ctx.patient, ctx.payer_id, [code], dos)
        intent = want.replacement(
            claim.claim_id,
            "put the auth on file on the claim",
            **{"corrections.prior_auth_number": auth.auth_number},
        )
    elif variant == "retro":
        pended = b.payer(ctx.payer_id).rules.auth_decision_by_code.get(code) == "pended"
        intent = want.retro_auth(claim.claim_id, approved=not pended).citing(
            *retro_auth_facts(ctx.payer_id, claim.claim_id)
        )
        tags += ["auth:pended" if pended else "auth:approved"] + (
            ["deadline:retro_near"] if window - late <= 3 else []
        )
    elif variant == "appeal":
        lmn = b.document(
            ctx.patient,
            claim,
            "letter_of_medical_necessity",
            "Letter of medical necessity",
            necessity_letter(ctx.patient.first_name, code, claim.diagnosis_codes, b.clinicians[0]),
        )
        intent = want.appeal(claim.claim_id, "medical_necessity", [record_id, lmn.document_id])
    else:
        intent = want.write_off(claim.claim_id, "no_authorization", claim.total_charge, b.limit).citing(
            *no_auth_path(ctx.payer_id, claim.claim_id)
        )
    if rng.random() < 0.3:  # an unrelated authorization on file, for another service
        b.authorization(ctx.patient, ctx.payer_id, [rng.choice(NEEDS_AUTH)], dos - timedelta(days=40))
    b.deny(claim, produced, carc, remarks=("M62",) if carc == "15" else ())
    return ctx.case(claim, intent, *tags)


# -- CARC 29: timely filing --------------------------------------------------------------------------------
def carc29(ctx: Ctx) -> Case:
    """The claim's 277CA acceptance is the proof of timely filing: within the limit → appeal citing
    it (a clearinghouse report on file is optional); accepted only after the limit, even when an
    earlier submission inside it was rejected → write off."""
    rng, b = ctx.rng, ctx.b
    rules = b.payer(ctx.payer_id).rules
    variant = rng.choices(("in_time", "late", "rejected_in_time"), (5, 3, 2))[0]
    dos = b.ago(rules.timely_filing_days + rng.randrange(20, 120))
    if variant == "in_time":
        sent = dos + timedelta(days=rules.timely_filing_days - rng.randrange(2, 30))
    else:
        sent = dos + timedelta(days=rules.timely_filing_days + rng.randrange(3, 60))
    produced = b.ago(rng.randrange(2, max(3, min(rules.appeal_window_days - 2, (b.today - sent).days - 1))))
    claim = b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos, submitted=sent, accepted=sent)
    if variant == "rejected_in_time":
        first = dos + timedelta(days=rng.randrange(5, max(6, rules.timely_filing_days - 5)))
        claim = swap(ctx, claim, acknowledgments=(rejection(first), *claim.acknowledgments))
    b.deny(claim, produced, "29")
    filed = want.seen(
        "accepted_277ca",
        f"the payer's 277CA accepted the claim on {sent.isoformat()}",
        None,
        claim.claim_id,
        before=("submit_appeal", *want.WRITE_OFF),
        returns=(sent.isoformat(),),
    )
    limit = want.rules_read(
        ctx.payer_id,
        "the payer's timely filing limit, against which the acceptance date is measured",
        claim.claim_id,
        "submit_appeal",
        *want.WRITE_OFF,
    )
    if variant != "in_time":
        intent = want.write_off(claim.claim_id, "timely_filing", claim.total_charge, b.limit)
        return ctx.case(claim, intent.citing(filed, limit), f"variant:{variant}")
    if rng.random() < 0.5:
        b.document(
            ctx.patient,
            claim,
            "proof_of_timely_filing",
            "277CA acceptance report",
            timely_filing_proof(
                claim.claim_id, b.payer(ctx.payer_id).name, sent.isoformat(), (sent - dos).days
            ),
            day=sent,
        )
    intent = want.appeal(claim.claim_id, "timely_filing", []).citing(filed, limit)
    return ctx.case(claim, intent, f"variant:{variant}")


# -- CARC 18: duplicate ---------------------------------------------------------------------------------------
def carc18(ctx: Ctx) -> Case:
    rng, b = ctx.rng, ctx.b
    dos, produced = recent(ctx)
    spec = LineSpec(rng.choice(OFFICE_VISITS), charge=float(rng.randrange(120, 300)))
    original = b.claim(ctx.patient, ctx.payer_id, [spec], dos, submitted=dos + timedelta(days=1))
    contractual = round(float(spec.charge or 0) * rng.uniform(0.15, 0.45), 2)
    paid_on = dos + timedelta(days=rng.randrange(2, 5))
    b.remit(original, paid_on, {1: [("CO", "45", contractual)]})
    claim = b.claim(ctx.patient, ctx.payer_id, [spec], dos, submitted=paid_on + timedelta(days=1))
    b.deny(claim, produced, "18", remarks=("M86",) if rng.random() < 0.5 else ())
    return ctx.case(claim, want.close_duplicate(claim.claim_id))


# -- CARC 22, 27, 109: the right payer -------------------------------------------------------------------------
def carc22(ctx: Ctx) -> Case:
    rng, b = ctx.rng, ctx.b
    primary = rng.choice([p for p in COMMERCIAL if p != ctx.payer_id])
    b.cover(ctx.patient, primary, "primary", b.ago(rng.randrange(200, 1500)))
    b.coverages.update(
        {
            c.coverage_id: c.model_copy(update={"cob_order": "secondary"})
            for c in b.coverages.values()
            if c.patient_id == ctx.patient.patient_id and c.payer_id == ctx.payer_id
        }
    )
    dos, produced = recent(ctx)
    claim = b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos, sequence="primary")
    b.deny(claim, produced, "22", remarks=("MA04",) if rng.random() < 0.6 else ())
    return ctx.case(claim, want.bill_other(claim.claim_id, primary, "primary"), f"primary:{primary}")


def carc27(ctx: Ctx) -> Case:
    rng, b = ctx.rng, ctx.b
    dos, produced = recent(ctx)
    ended = dos - timedelta(days=rng.randrange(5, 60))
    b.coverages.update(
        {
            c.coverage_id: c.model_copy(update={"end_date": ended})
            for c in b.coverages.values()
            if c.patient_id == ctx.patient.patient_id
        }
    )
    moved = rng.random() < 0.5
    if moved:
        new = rng.choice([p for p in ("MCD", *COMMERCIAL) if p != ctx.payer_id])
        b.cover(ctx.patient, new, "primary", ended + timedelta(days=1))
    claim = b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos)
    b.deny(
        claim, produced, "27", group=rng.choice(("CO", "PR")), remarks=("N30",) if rng.random() < 0.4 else ()
    )
    if moved:
        return ctx.case(claim, want.bill_other(claim.claim_id, new, "primary"), "variant:new_coverage")
    intent = want.transfer(claim.claim_id, "coverage_terminated").citing(
        coverage_ended(claim.claim_id, ended)
    )
    return ctx.case(claim, intent, "variant:uninsured")


def carc109(ctx: Ctx) -> Case:
    rng, b = ctx.rng, ctx.b
    wrong = rng.choice([p for p in ("MCR", "MCD", *COMMERCIAL) if p != ctx.payer_id])
    dos, produced = recent(ctx)
    other = ctx.b.person([(wrong, "primary", b.ago(800), None)])  # whose member id was keyed in by mistake
    member = b.coverage_of(other, wrong)
    assert member is not None
    claim = b.claim(ctx.patient, wrong, [visit(ctx)], dos, member_id=member.member_id, sequence="primary")
    b.deny(claim, produced, "109")
    return ctx.case(claim, want.bill_other(claim.claim_id, ctx.payer_id, "primary"))


# -- CARC 50, 97: necessity and bundling ----------------------------------------------------------------------
def carc50(ctx: Ctx) -> Case:
    rng, b = ctx.rng, ctx.b
    variant = (
        rng.choice(("support", "support", "waiver", "none"))
        if ctx.payer_id == "MCR"
        else rng.choice(("support", "none"))
    )
    code = rng.choice(("82607", "97110", "93000", "72148", "70553", "20610"))
    dos, produced = recent(ctx)
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code, ("GA",) if variant == "waiver" else ())], dos)
    record_id = record(ctx, claim, coded(claim))
    b.deny(claim, produced, "50")
    if variant == "support":
        lmn = b.document(
            ctx.patient,
            claim,
            "letter_of_medical_necessity",
            "Letter of medical necessity",
            necessity_letter(ctx.patient.first_name, code, claim.diagnosis_codes, b.clinicians[0]),
        )
        return ctx.case(
            claim,
            want.appeal(claim.claim_id, "medical_necessity", [record_id, lmn.document_id]),
            "variant:support",
        )
    if variant == "waiver":
        reason = rng.choice(ABN_REASONS)
        given = dos - timedelta(days=rng.choice((0, 0, 1, 3)))
        abn = b.document(
            ctx.patient,
            claim,
            "abn_waiver",
            "Advance Beneficiary Notice (CMS-R-131)",
            abn_text(code, reason),
            day=given,
            codes=(code,),
            reason=reason,
        )
        signed = want.read_doc(
            abn.document_id,
            "the ABN names this service and was signed before it",
            claim.claim_id,
            "transfer_to_patient_responsibility",
        )
        intent = want.transfer(claim.claim_id, "non_covered_with_waiver").citing(signed)
        return ctx.case(claim, intent, "variant:waiver")
    unsupported = [
        want.read_doc(
            record_id, "the chart does not support the service's necessity", claim.claim_id, *want.WRITE_OFF
        )
    ]
    if rng.random() < 0.5:  # a draft letter nobody signed does not count
        draft = b.document(
            ctx.patient,
            claim,
            "letter_of_medical_necessity",
            "Draft LMN (unsigned)",
            necessity_letter(ctx.patient.first_name, code, claim.diagnosis_codes, b.clinicians[0]),
            signed=False,
        )
        unsupported.append(
            want.read_doc(
                draft.document_id, "the only letter is an unsigned draft", claim.claim_id, *want.WRITE_OFF
            )
        )
    return ctx.case(
        claim,
        want.write_off(claim.claim_id, "not_medically_necessary", claim.total_charge, b.limit).citing(
            *unsupported
        ),
        "variant:none",
    )


DISTINCT_NOTES = {
    "59": "Second procedure distinct from the first, documented separately.",
    "XS": "Second procedure at a separate anatomic site, distinct lesion.",
    "XE": "Second procedure at a separate encounter later the same day.",
    "XP": "Second procedure performed by a different practitioner.",
    "XU": "Second procedure does not overlap the usual components of the first.",
}
"""Why a bundled service is distinct, as the chart says it, by the modifier the coder chose."""


def carc97(ctx: Ctx) -> Case:
    rng, b = ctx.rng, ctx.b
    first, second = rng.choice(
        (("17110", "11042"), ("11042", "17110"), ("20610", "97110"), ("11042", "97110"))
    )
    dos, produced = recent(ctx)
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(first), LineSpec(second)], dos)
    distinct = rng.random() < 0.5
    mod = rng.choice(tuple(DISTINCT_NOTES))
    chart = coded(claim)
    if distinct:
        chart[1] = replace(chart[1], modifiers=(mod,))
    note = DISTINCT_NOTES[mod] if distinct else ""
    note_id = record(ctx, claim, chart, kind="operative_note", extra=note)
    b.remit(
        claim,
        produced,
        {2: [("CO", "97", claim.lines[1].charge)]},
        {2: ("N657",)} if rng.random() < 0.5 else None,
    )
    if distinct:
        intent = want.replacement(
            claim.claim_id,
            "distinct service documented",
            **{"corrections.lines.0.modifiers": {"$contains": mod}},
        )
        return ctx.case(claim, intent, "variant:distinct")
    bundled = want.read_doc(
        note_id, "the procedure note documents no distinct service", claim.claim_id, *want.WRITE_OFF
    )
    intent = want.write_off(claim.claim_id, "bundled", claim.lines[1].charge, b.limit).citing(bundled)
    return ctx.case(claim, intent, "variant:bundled")


# -- money that is not a denial: 45, 1, 2, 3; and B7 ---------------------------------------------------------
def carc45(ctx: Ctx) -> Case:
    """CO-45 at the contracted rate: a contractual write-off, whatever its size (a contractual
    adjustment is not discretionary and needs no approval). Half the payers have the practice's fee
    schedule on file, and the payer allowed exactly its rate."""
    rng, b = ctx.rng, ctx.b
    dos, produced = recent(ctx)
    code = rng.choice((*OFFICE_VISITS, "72148", "45378", "29881", "20610"))
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code)], dos)
    contractual = round(claim.total_charge * rng.uniform(0.15, 0.45), 2)
    on_file = rng.random() < 0.5
    if on_file:
        b.contract(ctx.payer_id, code, claim.total_charge - contractual)
    b.remit(claim, produced, {1: [("CO", "45", contractual)]})
    intent = want.write_off(claim.claim_id, "contractual", contractual, b.limit).citing(
        contract_read(ctx.payer_id, claim.claim_id)
    )
    return ctx.case(claim, intent, f"variant:{'fee_schedule' if on_file else 'no_fee_schedule'}")


def underpaid(ctx: Ctx) -> Case:
    """CO-45 below the contracted rate on file: an underpayment to appeal, not a write-off."""
    rng, b = ctx.rng, ctx.b
    dos, produced = recent(ctx)
    code = rng.choice((*OFFICE_VISITS, "72148", "29881", "20610", "93000"))
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code)], dos)
    rate = round(claim.total_charge * rng.uniform(0.55, 0.85), 2)
    allowed = round(rate * rng.uniform(0.6, 0.92), 2)
    b.contract(ctx.payer_id, code, rate)
    b.remit(claim, produced, {1: [("CO", "45", round(claim.total_charge - allowed, 2))]})
    intent = want.underpayment(claim.claim_id, ctx.payer_id, round(claim.total_charge - rate, 2))
    return ctx.case(claim, intent)


def patient_share(ctx: Ctx, carc: str) -> Case:
    rng, b = ctx.rng, ctx.b
    dos, produced = recent(ctx)
    claim = b.claim(ctx.patient, ctx.payer_id, [visit(ctx, (*OFFICE_VISITS, "97110", "90834"))], dos)
    charge = claim.total_charge
    amount = {
        "1": round(charge * rng.uniform(0.3, 0.9), 2),
        "2": round(charge * 0.2, 2),
        "3": float(rng.choice((20, 25, 30, 40, 50))),
    }[carc]
    b.remit(claim, produced, {1: [("PR", carc, amount)]})
    reason = {"1": "deductible", "2": "coinsurance", "3": "copay"}[carc]
    return ctx.case(claim, want.transfer(claim.claim_id, reason), VISIBLE_SHARE)


def carcB7(ctx: Ctx) -> Case:
    dos, produced = recent(ctx)
    claim = ctx.b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos, rendering=ctx.b.clinicians[1].npi)
    ctx.b.deny(claim, produced, "B7")
    return ctx.case(
        claim, want.escalation(claim.claim_id, "credentialing"), f"{VISIBLE_TAG}b7-names-credentialing"
    )


# fmt: off
BASE: dict[str, Builder] = {
    "16": carc16, "4": carc4, "15": lambda c: authorization(c, "15"), "197": lambda c: authorization(c, "197"),
    "29": carc29, "18": carc18, "22": carc22, "27": carc27, "31": carc31, "50": carc50, "97": carc97,
    "109": carc109, "45": carc45, "1": lambda c: patient_share(c, "1"), "2": lambda c: patient_share(c, "2"),
    "3": lambda c: patient_share(c, "3"), "B7": carcB7,
}
# fmt: on
"""CARC → builder, one per row of the brief's table."""
PAYER_FOR: dict[str, tuple[str, ...]] = {
    "22": ("MCR", "BLUE", "CEDR"),
    "50": ("MCR", "MCR", "ACME", "BLUE", "NWND"),
}
"""Rows whose story needs particular payers (COB with Medicare as secondary, ABN waivers)."""
