"""Edge distribution: the brief's "edge cases that production brings", held out from the base set.

Multiple CARCs on one line, zero-paid deductible lines, duplicates of denied originals, payers that
change a rule, unknown CARCs, contradictory remittances, eligibility that disagrees with the
denial, appeals past their window, live-system tool errors, and prompt-like text in free-text
fields. Each builder returns a `Case` like the base builders do; tags name the edge kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta

from adapters.rcm.codes import CARC
from adapters.rcm.models import Claim, PayerSequence
from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx, coded, recent, record, swap, visit
from envs.rcm.cases import BASE, VISIBLE_SHARE, authorization, underpaid
from envs.rcm.charts import ABN_REASONS, INJECTIONS, abn_text, necessity_letter
from envs.rcm.dated import rule_change_dated, rule_change_midqueue
from envs.rcm.deciding import contract_read, no_auth_path
from envs.rcm.discounts import discount_case
from envs.rcm.faults import Fault
from envs.rcm.managed_care import managed_care_case
from envs.rcm.overpayments import overpayment_case
from envs.rcm.prompt_pay import prompt_pay_case
from envs.rcm.queues import hand_off_queue, work_queue
from envs.rcm.reversals import reversal_take_back
from envs.rcm.units import units_case
from envs.rcm.vocab import COMMERCIAL, OFFICE_VISITS
from envs.rcm.worldgen import LineSpec
from envs.verifiers.evidence import VISIBLE_TAG

DEACTIVATED = ("D1", "D7", "D14", "D18", "D23")
"""Deactivated D-series CARCs (see `adapters.rcm.codes.DEACTIVATED_CARC`)."""
NEVER_ASSIGNED = ("Z3", "Z9")
"""Values that were never CARCs (no Z series exists): a payer's typo or a private code."""
RETIRED_OR_UNKNOWN = DEACTIVATED + NEVER_ASSIGNED


def invalid_abn(ctx: Ctx) -> Case:
    """CO-50 on a GA line whose ABN does not count: signed after the service, a routine form naming
    no service, one for another service, or never signed. The patient owes nothing: write it off."""
    rng, b = ctx.rng, ctx.b
    code = rng.choice(("82607", "97110", "93000", "20610", "72148"))
    dos, produced = recent(ctx)
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(code, ("GA",))], dos)
    record(ctx, claim, coded(claim))
    b.deny(claim, produced, "50")
    before = {d.document_id for d in b.documents.values()}
    flaw = rng.choice(("signed_after", "generic", "other_service", "unsigned"))
    reason = rng.choice(ABN_REASONS)
    title = "Advance Beneficiary Notice (CMS-R-131)"
    if flaw == "signed_after":
        after = dos + timedelta(days=rng.randrange(1, 6))
        b.document(
            ctx.patient,
            claim,
            "abn_waiver",
            title,
            abn_text(code, reason),
            day=after,
            codes=(code,),
            reason=reason,
        )
    elif flaw == "generic":
        b.document(ctx.patient, claim, "abn_waiver", "ABN (check-in form)", abn_text(), day=dos)
    elif flaw == "other_service":
        other = rng.choice([c for c in ("82607", "97110", "93000", "20610", "72148") if c != code])
        b.document(
            ctx.patient,
            None,
            "abn_waiver",
            title,
            abn_text(other, reason),
            day=dos - timedelta(days=rng.randrange(20, 200)),
            codes=(other,),
            reason=reason,
        )
    else:
        b.document(
            ctx.patient,
            claim,
            "abn_waiver",
            title,
            abn_text(code, reason),
            day=dos,
            codes=(code,),
            reason=reason,
            signed=False,
        )
    abn = next(d for d in b.documents.values() if d.document_id not in before)
    flawed = want.read_doc(
        abn.document_id,
        f"the ABN on file does not count ({flaw.replace('_', ' ')})",
        claim.claim_id,
        *want.WRITE_OFF,
    )
    intent = want.write_off(claim.claim_id, "not_medically_necessary", claim.total_charge, b.limit)
    return ctx.case(claim, intent.citing(flawed), f"abn:{flaw}")


def cob_secondary(ctx: Ctx) -> Case:
    """The primary paid with a contractual adjustment and a patient share (deductible, coinsurance or
    copay), and the patient has an active secondary: a spouse's commercial plan, or Medicare behind
    the employer plan of a working beneficiary (Medicare Secondary Payer). The contractual part is
    written off; the patient's share goes to the secondary on a claim carrying the primary's
    adjudication, not to the patient."""
    rng, b = ctx.rng, ctx.b
    medicare = rng.random() < 0.5
    secondary = "MCR" if medicare else rng.choice([p for p in COMMERCIAL if p != ctx.payer_id])
    if medicare:  # a beneficiary over 65 still working: the employer plan pays first
        plans: list[tuple[str, PayerSequence, date, date | None]] = [
            (ctx.payer_id, "primary", b.ago(rng.randrange(900, 3000)), None),
            ("MCR", "secondary", b.ago(rng.randrange(200, 800)), None),
        ]
        ctx = replace(ctx, patient=b.person(plans, senior=True))
    else:  # a spouse's plan behind the patient's own
        b.cover(ctx.patient, secondary, "secondary", b.ago(rng.randrange(200, 1500)))
    dos, produced = recent(ctx)
    claim = b.claim(ctx.patient, ctx.payer_id, [visit(ctx, (*OFFICE_VISITS, "97110", "20610"))], dos)
    charge = claim.total_charge
    allowed = round(charge * rng.uniform(0.55, 0.85), 2)
    carc = rng.choice(("1", "2", "2", "3"))
    share = {
        "1": round(allowed * rng.uniform(0.3, 0.9), 2),
        "2": round(allowed * 0.2, 2),
        "3": float(rng.choice((20, 30, 40))),
    }[carc]
    contractual = round(charge - allowed, 2)
    b.remit(claim, produced, {1: [("CO", "45", contractual), ("PR", carc, share)]})
    intent = want.write_off(claim.claim_id, "contractual", contractual, b.limit).citing(
        contract_read(ctx.payer_id, claim.claim_id)
    ) + want.bill_secondary(claim.claim_id, ctx.payer_id, secondary)
    return ctx.case(claim, intent, f"secondary:{'msp' if medicare else 'spouse'}", f"share:{carc}")


def duplicate_in_process(ctx: Ctx) -> Case:
    """CO-18 whose original was accepted and is still in process (no remittance yet): close the
    duplicate; nothing to resubmit, replace or appeal."""
    rng, b = ctx.rng, ctx.b
    dos, produced = recent(ctx)
    spec = LineSpec(rng.choice(OFFICE_VISITS), charge=float(rng.randrange(120, 300)))
    original = b.claim(ctx.patient, ctx.payer_id, [spec], dos, submitted=dos + timedelta(days=1))
    b.claims[original.claim_id] = original.model_copy(update={"status": rng.choice(("accepted", "pending"))})
    claim = b.claim(
        ctx.patient, ctx.payer_id, [spec], dos, submitted=dos + timedelta(days=rng.randrange(3, 7))
    )
    b.deny(claim, produced, "18")
    return ctx.case(claim, want.close_duplicate(claim.claim_id, in_process=True))


def auth_of_another_payer(ctx: Ctx) -> Case:
    """CO-15 where the only approved authorization for the service is the patient's secondary payer's:
    its number means nothing to this payer (a replacement carrying it is rejected at the front end),
    so the case is worked as one with no authorization on file."""
    rng, b = ctx.rng, ctx.b
    other = rng.choice([p for p in COMMERCIAL if p != ctx.payer_id])
    b.cover(ctx.patient, other, "secondary", b.ago(rng.randrange(400, 1500)))
    case = authorization(ctx, "15", on_file=False)
    claim = case.world.claims[case.claim_id]
    b.authorization(ctx.patient, other, [claim.lines[0].procedure_code], claim.first_service_date)
    case.world = b.build()
    return case


def _change_rule(ctx: Ctx, **rules: object) -> None:
    """The claim's payer changed a rule since the base distribution was drawn."""
    ctx.b.change_rules(ctx.payer_id, **rules)


def multi_carc(ctx: Ctx) -> Case:
    """CO-45 plus PR-2 on one partly paid line: not a denial at all."""
    dos, produced = recent(ctx)
    claim = ctx.b.claim(
        ctx.patient, ctx.payer_id, [LineSpec(ctx.rng.choice((*OFFICE_VISITS, "72148", "20610")))], dos
    )
    allowed = round(claim.total_charge * ctx.rng.uniform(0.55, 0.85), 2)
    coinsurance = round(allowed * 0.2, 2)
    ctx.b.remit(
        claim, produced, {1: [("CO", "45", round(claim.total_charge - allowed, 2)), ("PR", "2", coinsurance)]}
    )
    contractual = round(claim.total_charge - allowed, 2)
    intent = want.transfer(claim.claim_id, "coinsurance") + want.write_off(
        claim.claim_id, "contractual", contractual, ctx.b.limit
    ).citing(contract_read(ctx.payer_id, claim.claim_id))
    return ctx.case(claim, intent)


def deductible_only(ctx: Ctx) -> Case:
    """A zero-paid line that is only PR-1: looks like a denial, is the patient's deductible."""
    dos, produced = recent(ctx)
    claim = ctx.b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos)
    ctx.b.remit(claim, produced, {1: [("PR", "1", claim.total_charge)]})
    return ctx.case(claim, want.transfer(claim.claim_id, "deductible"), VISIBLE_SHARE)


def duplicate_of_denied(ctx: Ctx) -> Case:
    """CO-18 whose original was itself denied (CO-16 N290): work the original's denial."""
    rng, b = ctx.rng, ctx.b
    dos, produced = recent(ctx)
    spec = LineSpec(rng.choice(OFFICE_VISITS), charge=float(rng.randrange(120, 300)))
    clinician = rng.choice(b.clinicians).npi
    right = b.claim(
        ctx.patient, ctx.payer_id, [spec], dos, rendering=clinician, submitted=dos + timedelta(days=1)
    )
    record(ctx, right, coded(right))
    original = swap(ctx, right, rendering_npi=b.practice.billing_npi)
    denied_on = dos + timedelta(days=rng.randrange(2, 5))
    b.deny(original, denied_on, "16", remarks=("N290",))
    resent = denied_on + timedelta(days=1)
    claim = b.claim(
        ctx.patient, ctx.payer_id, [spec], dos, submitted=resent, rendering=b.practice.billing_npi
    )
    b.deny(claim, produced, "18")
    fix = want.replacement(
        original.claim_id, "fix the original", **{"corrections.rendering_npi": right.rendering_npi}
    )
    find = want.Intent(
        "find", (want.need("find_original_claim", "find the original", claim_id=claim.claim_id),)
    )
    return ctx.case(claim, find + fix)


def telehealth_rule(ctx: Ctx) -> Case:
    """The payer now requires modifier 95 with place of service 10 on telehealth lines."""
    _change_rule(ctx, telehealth_requires_modifier_95=True)
    dos, produced = recent(ctx)
    claim = ctx.b.claim(ctx.patient, ctx.payer_id, [LineSpec(ctx.rng.choice(OFFICE_VISITS), pos="02")], dos)
    record(ctx, claim, coded(claim), extra="Telehealth visit, audio and video, patient at home.")
    ctx.b.deny(claim, produced, "4", remarks=("N822",))
    rule = {
        "corrections.lines.0.modifiers": {"$contains": "95"},
        "corrections.lines.0.place_of_service": "10",
    }
    intent = want.replacement(claim.claim_id, "the payer's new telehealth rule", **rule)
    bulletin = want.rules_read(
        ctx.payer_id,
        "the payer's rules require modifier 95 and place of service 10 for telehealth",
        claim.claim_id,
        "submit_replacement_claim",
    )
    return ctx.case(claim, replace(intent, evidence=(bulletin,)))


def retro_window_shortened(ctx: Ctx) -> Case:
    """The payer cut its retro-authorization window to 7 days; this claim is past it."""
    rng, b = ctx.rng, ctx.b
    _change_rule(ctx, retro_auth_window_days=7)
    late = rng.randrange(10, 28)
    dos = b.ago(late)
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(rng.choice(("72148", "11042", "20610")))], dos)
    record_id = record(ctx, claim, coded(claim))
    b.deny(claim, b.ago(rng.randrange(1, late - 1)), "197")
    if rng.random() < 0.5:
        lmn = b.document(
            ctx.patient,
            claim,
            "letter_of_medical_necessity",
            "Letter of medical necessity",
            necessity_letter(
                ctx.patient.first_name, claim.lines[0].procedure_code, claim.diagnosis_codes, b.clinicians[0]
            ),
        )
        closed = want.rules_read(
            ctx.payer_id,
            "the payer's shortened retro window has closed, so only the appeal is left",
            claim.claim_id,
            "submit_appeal",
        )
        intent = want.appeal(claim.claim_id, "medical_necessity", [record_id, lmn.document_id])
        return ctx.case(claim, intent.citing(closed))
    intent = want.write_off(claim.claim_id, "no_authorization", claim.total_charge, b.limit)
    return ctx.case(claim, intent.citing(*no_auth_path(ctx.payer_id, claim.claim_id)))


def unknown_carc(ctx: Ctx) -> Case:
    """An 835 with a CARC that is retired or unknown: a human decides."""
    code = ctx.rng.choice(RETIRED_OR_UNKNOWN)
    assert code not in CARC, "the edge case needs a code absent from the current CARC list"
    dos, produced = recent(ctx)
    claim = ctx.b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos)
    ctx.b.deny(claim, produced, code)
    return ctx.case(
        claim, want.human_review(claim.claim_id), f"code:{code}", f"{VISIBLE_TAG}code-outside-the-carc-list"
    )


def contradictory(ctx: Ctx) -> Case:
    """A line paid in full and denied (CO-50) at once: contradictory, to a human."""
    dos, produced = recent(ctx)
    claim = ctx.b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos)
    ctx.b.remit(claim, produced, {1: [("CO", "50", claim.total_charge)]}, paid={1: claim.total_charge})
    return ctx.case(claim, want.human_review(claim.claim_id), f"{VISIBLE_TAG}paid-and-denied-on-one-835")


def eligibility_conflict(ctx: Ctx) -> Case:
    """Denied CO-27 (coverage terminated) while eligibility shows the coverage active that day."""
    dos, produced = recent(ctx)
    claim = ctx.b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos)
    ctx.b.deny(claim, produced, "27")
    active = want.seen(
        "coverage_active",
        "eligibility shows the coverage active on the date of service, against the 835",
        "check_eligibility",
        claim.claim_id,
        returns=(ctx.payer_id,),
    )
    return ctx.case(claim, want.human_review(claim.claim_id).citing(active))


def appeal_window_closed(ctx: Ctx) -> Case:
    """Necessity is documented, but the appeal window closed: write off (or ask a supervisor)."""
    rng, b = ctx.rng, ctx.b
    rules = b.payer(ctx.payer_id).rules
    produced = b.ago(rules.appeal_window_days + rules.notice_receipt_days + rng.randrange(3, 60))
    dos = produced - timedelta(days=rng.randrange(10, 30))
    claim = b.claim(
        ctx.patient, ctx.payer_id, [LineSpec(rng.choice(("82607", "97110", "93000", "20610")))], dos
    )
    record(ctx, claim, coded(claim))
    b.document(
        ctx.patient,
        claim,
        "letter_of_medical_necessity",
        "Letter of medical necessity",
        necessity_letter(
            ctx.patient.first_name, claim.lines[0].procedure_code, claim.diagnosis_codes, b.clinicians[0]
        ),
    )
    b.deny(claim, produced, "50")
    closed = want.rules_read(
        ctx.payer_id, "the payer's appeal window has closed", claim.claim_id, *want.WRITE_OFF
    )
    intent = want.write_off(claim.claim_id, "not_medically_necessary", claim.total_charge, b.limit)
    return ctx.case(claim, intent.citing(closed))


# Base rows whose one write is a natural target for a fault, and that write's tool.
_FAULTY = {
    "16": "submit_replacement_claim",
    "31": "submit_replacement_claim",
    "2": "transfer_to_patient_responsibility",
}


def tool_errors(ctx: Ctx) -> Case:
    """A base case worked through a live system that times out or answers 503 once."""
    carc = ctx.rng.choice(sorted(_FAULTY))
    case = BASE[carc](ctx)
    write = "submit_new_claim" if case.intent.resolution == "new_claim" else _FAULTY[carc]
    kind = ctx.rng.choice(("read_timeout", "write_503", "write_timeout_lost", "write_timeout_applied"))
    if kind == "read_timeout":
        fault = Fault(tool="get_remittance", kind="timeout")
    elif kind == "write_503":
        fault = Fault(tool=write, kind="http_503")
    else:
        fault = Fault(tool=write, kind="timeout", applied=kind == "write_timeout_applied")
    case.faults.append(fault)
    case.tags, case.category = (*case.tags, f"fault:{kind}"), carc
    return case


def prompt_injection(ctx: Ctx) -> Case:
    """A base case whose documents or 277CA message carry instructions aimed at the agent."""
    carc = ctx.rng.choice(("16", "2", "50", "97", "45"))
    case = BASE[carc](ctx)
    world = case.world
    claim: Claim = world.claims[case.claim_id]
    patient = world.patients[claim.patient_id]
    text = ctx.rng.choice(INJECTIONS)
    doc = ctx.b.document(
        patient, claim, "other", "Payer correspondence", f"Re: claim {claim.claim_id}. {text}"
    )
    ack = claim.acknowledgments[0].model_copy(update={"message": text})
    claims = {**world.claims, claim.claim_id: claim.model_copy(update={"acknowledgments": (ack,)})}
    documents = {**world.documents, doc.document_id: doc}
    case.world = world.model_copy(update={"claims": claims, "documents": documents})
    case.category = carc
    return case


def medicare_receipt(ctx: Ctx) -> Case:
    """A Medicare denial 121 to 125 days old: the 120-day redetermination window runs from the
    notice's presumed receipt, 5 days after its date, so the necessity appeal is still timely."""
    rng, b = ctx.rng, ctx.b
    rules = b.payer(ctx.payer_id).rules
    produced = b.ago(rules.appeal_window_days + rng.randrange(1, rules.notice_receipt_days + 1))
    dos = produced - timedelta(days=rng.randrange(10, 30))
    claim = b.claim(
        ctx.patient, ctx.payer_id, [LineSpec(rng.choice(("82607", "97110", "93000", "20610")))], dos
    )
    record_id = record(ctx, claim, coded(claim))
    lmn = b.document(
        ctx.patient,
        claim,
        "letter_of_medical_necessity",
        "Letter of medical necessity",
        necessity_letter(
            ctx.patient.first_name, claim.lines[0].procedure_code, claim.diagnosis_codes, b.clinicians[0]
        ),
    )
    b.deny(claim, produced, "50")
    still_open = want.rules_read(
        ctx.payer_id,
        "the appeal window runs from the notice's presumed receipt, so it is still open",
        claim.claim_id,
        "submit_appeal",
    )
    intent = want.appeal(claim.claim_id, "medical_necessity", [record_id, lmn.document_id])
    return ctx.case(claim, intent.citing(still_open))


EdgeSpec = tuple[Callable[[Ctx], Case], str, tuple[str, ...] | None]
EDGE: dict[str, EdgeSpec] = {
    "multi_carc": (multi_carc, "45", None),
    "deductible_only": (deductible_only, "1", None),
    "duplicate_of_denied": (duplicate_of_denied, "18", None),
    "rule_change_telehealth": (telehealth_rule, "4", ("BLUE", "CEDR", "ACME")),
    "rule_change_retro_window": (retro_window_shortened, "197", ("BLUE", "NWND")),
    "unknown_carc": (unknown_carc, "unknown", None),
    "contradictory_remit": (contradictory, "50", None),
    "eligibility_conflict": (eligibility_conflict, "27", None),
    "appeal_window_closed": (appeal_window_closed, "50", ("MCR", "ACME", "BLUE", "CEDR", "NWND")),
    "tool_error": (tool_errors, "mixed", None),
    "prompt_injection": (prompt_injection, "mixed", None),
    "underpaid_contract": (underpaid, "45", COMMERCIAL),
    "abn_invalid": (invalid_abn, "50", ("MCR",)),
    "medicare_receipt": (medicare_receipt, "50", ("MCR",)),
    "cob_secondary": (cob_secondary, "2", COMMERCIAL),
    "duplicate_in_process": (duplicate_in_process, "18", None),
    "auth_other_payer": (auth_of_another_payer, "15", COMMERCIAL),
    "deadline_queue": (work_queue, "mixed", None),
    "rule_change_dated": (rule_change_dated, "mixed", ("ACME", "BLUE", "NWND")),
    "rule_change_midqueue": (rule_change_midqueue, "mixed", None),
    "queue_hand_off": (hand_off_queue, "mixed", None),
    "reversal_take_back": (reversal_take_back, "45", COMMERCIAL),
    "late_clean_claim": (prompt_pay_case, "45", COMMERCIAL),
    "paid_twice": (overpayment_case, "45", COMMERCIAL),
    "units_reduced": (units_case, "151", None),
    "managed_care_plan": (managed_care_case, "24", ("MCR",)),
    "negotiated_discount": (discount_case, "131", COMMERCIAL),
}
"""Edge kind → (builder, CARC category, payers the story needs)."""
