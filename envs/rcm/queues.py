"""Work queues: one work item holding several claims (3 to 6), some with deadlines, where the order
the specialist works them in decides whether a deadline is met.

A claim's deadline is the last day its payer accepts the move the claim needs: an appeal's window
(from the notice's presumed receipt), a corrected claim's timely-filing limit (from the date of
service); settling a patient share, a contractual adjustment or a paid duplicate has none. The
claims are listed in the work item in an order that is not the deadline order, so working the list
top to bottom misses a deadline. The right order is in the task (`VerifierSpec.params["queue"]`)
and `envs.rcm.ordering` checks it; each claim's right handling is its own intent, scoped to it.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx, QueueItem, coded, record, swap, visit
from envs.rcm.charts import necessity_letter
from envs.rcm.intents import WRITES, Intent
from envs.rcm.specs import outcome_spec
from envs.rcm.vocab import COMMERCIAL, OFFICE_VISITS
from envs.rcm.worldgen import LineSpec
from schemas.tasks import Assertion, CallConstraint, OutcomeSpec

QUEUE_KIND = "work_queue"
"""`WorkItem.kind` of a queue (a single claim is a `denial`)."""
DEADLINE_BANDS = ((1, 3), (9, 14), (24, 40))
"""Days left of the claims with a deadline, one band each, so their order is never a close call."""


def _patient(ctx: Ctx, payer_id: str) -> Ctx:
    """A new patient covered by `payer_id`, in the queue's world."""
    b = ctx.b
    patient = b.person(
        [(payer_id, "primary", b.ago(ctx.rng.randrange(400, 3000)), None)], senior=payer_id == "MCR"
    )
    return Ctx(b, ctx.rng, patient, payer_id)


def appeal_due(ctx: Ctx, days_left: int) -> QueueItem:
    """CO-50 with records and a signed letter of medical necessity, the appeal window closing in
    `days_left` days."""
    sub = _patient(ctx, ctx.rng.choice(("MCR", "MCD", *COMMERCIAL)))
    b, rng = sub.b, sub.rng
    rules = b.payer(sub.payer_id).rules
    produced = b.ago(rules.appeal_window_days + rules.notice_receipt_days - days_left)
    dos = produced - timedelta(days=rng.randrange(10, 30))
    code = rng.choice(("82607", "97110", "93000", "20610"))
    claim = b.claim(sub.patient, sub.payer_id, [LineSpec(code)], dos)
    record_id = record(sub, claim, coded(claim))
    lmn = b.document(
        sub.patient,
        claim,
        "letter_of_medical_necessity",
        "Letter of medical necessity",
        necessity_letter(sub.patient.first_name, code, claim.diagnosis_codes, b.clinicians[0]),
    )
    b.deny(claim, produced, "50")
    intent = want.appeal(claim.claim_id, "medical_necessity", [record_id, lmn.document_id])
    return QueueItem(claim.claim_id, intent, rules.appeal_deadline(produced))


def correction_due(ctx: Ctx, days_left: int) -> QueueItem:
    """CO-16 N290 (the billing NPI where the clinician's belongs), the payer's timely-filing limit
    for the corrected claim ending in `days_left` days."""
    sub = _patient(ctx, ctx.rng.choice(COMMERCIAL))
    b, rng = sub.b, sub.rng
    rules = b.payer(sub.payer_id).rules
    dos = b.ago(rules.timely_filing_days - days_left)
    produced = dos + timedelta(days=rng.randrange(8, 20))
    right = b.claim(sub.patient, sub.payer_id, [visit(sub)], dos, rendering=rng.choice(b.clinicians).npi)
    record(sub, right, coded(right))
    claim = swap(sub, right, rendering_npi=b.practice.billing_npi)
    b.deny(claim, produced, "16", remarks=("N290",))
    intent = want.replacement(
        claim.claim_id, "fix what RARC N290 names", **{"corrections.rendering_npi": right.rendering_npi}
    )
    return QueueItem(claim.claim_id, intent, dos + timedelta(days=rules.timely_filing_days))


def patient_share(ctx: Ctx) -> QueueItem:
    """PR-1/2/3 only: the patient's share, no deadline."""
    sub = _patient(ctx, ctx.rng.choice(("MCD", *COMMERCIAL)))
    b, rng = sub.b, sub.rng
    dos = b.ago(rng.randrange(20, 60))
    claim = b.claim(sub.patient, sub.payer_id, [visit(sub)], dos)
    carc = rng.choice(("1", "2", "3"))
    amount = {"1": round(claim.total_charge * 0.5, 2), "2": round(claim.total_charge * 0.2, 2), "3": 30.0}[
        carc
    ]
    b.remit(claim, dos + timedelta(days=rng.randrange(8, 15)), {1: [("PR", carc, amount)]})
    reason = {"1": "deductible", "2": "coinsurance", "3": "copay"}[carc]
    return QueueItem(claim.claim_id, want.transfer(claim.claim_id, reason), None)


def contractual(ctx: Ctx) -> QueueItem:
    """CO-45 with no fee schedule on file: a contractual write-off, no deadline."""
    sub = _patient(ctx, ctx.rng.choice(("MCD", *COMMERCIAL)))
    b, rng = sub.b, sub.rng
    dos = b.ago(rng.randrange(20, 60))
    claim = b.claim(sub.patient, sub.payer_id, [visit(sub)], dos)
    amount = round(claim.total_charge * rng.uniform(0.15, 0.4), 2)
    b.remit(claim, dos + timedelta(days=rng.randrange(8, 15)), {1: [("CO", "45", amount)]})
    return QueueItem(claim.claim_id, want.write_off(claim.claim_id, "contractual", amount, b.limit), None)


def paid_duplicate(ctx: Ctx) -> QueueItem:
    """CO-18 whose original was paid: close it, no deadline."""
    sub = _patient(ctx, ctx.rng.choice(("MCD", *COMMERCIAL)))
    b, rng = sub.b, sub.rng
    dos = b.ago(rng.randrange(30, 60))
    spec = LineSpec(rng.choice(OFFICE_VISITS), charge=float(rng.randrange(120, 300)))
    original = b.claim(sub.patient, sub.payer_id, [spec], dos, submitted=dos + timedelta(days=1))
    b.remit(original, dos + timedelta(days=4), {1: [("CO", "45", round(float(spec.charge or 0) * 0.3, 2))]})
    claim = b.claim(sub.patient, sub.payer_id, [spec], dos, submitted=dos + timedelta(days=6))
    b.deny(claim, dos + timedelta(days=12), "18")
    return QueueItem(claim.claim_id, want.close_duplicate(claim.claim_id), None)


def coding_due(ctx: Ctx, days_left: int) -> QueueItem:
    """CO-16 N290 whose visit note is an unsigned dictation naming no provider: only a coder can
    say who rendered the service, and the timely-filing limit for the corrected claim ends in
    `days_left` days. The hand-off is the urgent work: a human needs the time left."""
    sub = _patient(ctx, ctx.rng.choice(COMMERCIAL))
    b, rng = sub.b, sub.rng
    rules = b.payer(sub.payer_id).rules
    dos = b.ago(rules.timely_filing_days - days_left)
    produced = dos + timedelta(days=rng.randrange(8, 20))
    claim = b.claim(sub.patient, sub.payer_id, [visit(sub)], dos, rendering=b.practice.billing_npi)
    b.document(
        sub.patient,
        claim,
        "medical_record",
        "Visit note (dictation pending)",
        f"{sub.patient.first_name} was seen in the office. Dictation pending; no provider has signed the note.",
        signed=False,
    )
    b.deny(claim, produced, "16", remarks=("N290",))
    deadline = dos + timedelta(days=rules.timely_filing_days)
    return QueueItem(claim.claim_id, want.escalation(claim.claim_id, "coding"), deadline)


def credentialing(ctx: Ctx) -> QueueItem:
    """B7: the rendering provider was not certified with the payer on the date: credentialing
    decides, no deadline."""
    sub = _patient(ctx, ctx.rng.choice(("MCD", *COMMERCIAL)))
    b, rng = sub.b, sub.rng
    dos = b.ago(rng.randrange(20, 60))
    claim = b.claim(sub.patient, sub.payer_id, [visit(sub)], dos, rendering=b.clinicians[1].npi)
    b.deny(claim, dos + timedelta(days=rng.randrange(8, 15)), "B7")
    return QueueItem(claim.claim_id, want.escalation(claim.claim_id, "credentialing"), None)


EASY = (patient_share, contractual, paid_duplicate)
DUE = (appeal_due, correction_due)


def work_queue(ctx: Ctx) -> Case:
    """A queue of 3 to 6 claims: one to three with deadlines in separate bands, the rest easy, listed
    so that the most urgent claim is never first."""
    rng = ctx.rng
    size = rng.randrange(3, 7)
    due = rng.randrange(1, min(3, size - 1) + 1)
    bands = sorted(rng.sample(range(len(DEADLINE_BANDS)), due))
    items = [rng.choice(DUE)(ctx, rng.randrange(*_inclusive(DEADLINE_BANDS[b]))) for b in bands]
    items += [rng.choice(EASY)(ctx) for _ in range(size - due)]
    listed = _listing(rng, items)
    world = ctx.b.build()
    return Case(
        world,
        listed[0].claim_id,
        Intent("queue"),
        (f"queue:size:{size}", f"queue:due:{due}"),
        queue=tuple(listed),
    )


def hand_off_queue(ctx: Ctx) -> Case:
    """A queue of 3 to 5 claims, one of which needs a human: handing it off ends nothing, the
    others are still worked. Half the time the hand-off is the most urgent claim (a corrected
    claim's filing limit closing, only a coder can fix it), half the time a B7 with no deadline."""
    rng = ctx.rng
    size = rng.randrange(3, 6)
    first, second = sorted(rng.sample(range(len(DEADLINE_BANDS)), 2))
    urgent = rng.random() < 0.5
    days = [rng.randrange(*_inclusive(DEADLINE_BANDS[b])) for b in (first, second)]
    if urgent:
        items = [coding_due(ctx, days[0]), rng.choice(DUE)(ctx, days[1])]
    else:
        items = [rng.choice(DUE)(ctx, days[0]), credentialing(ctx)]
    items += [rng.choice(EASY)(ctx) for _ in range(size - 2)]
    listed = _listing(rng, items)
    due = sum(i.deadline is not None for i in items)
    return Case(
        ctx.b.build(),
        listed[0].claim_id,
        Intent("queue"),
        (f"queue:size:{size}", f"queue:due:{due}", f"queue:hand_off:{'urgent' if urgent else 'no_deadline'}"),
        queue=tuple(listed),
    )


def _inclusive(band: tuple[int, int]) -> tuple[int, int]:
    return band[0], band[1] + 1


def _listing(rng: random.Random, items: list[QueueItem]) -> list[QueueItem]:
    """The items in a shuffled order whose first item is not the most urgent one."""
    urgent = min((i for i in items if i.deadline is not None), key=lambda i: i.deadline or date.max)
    listed = list(items)
    while True:
        rng.shuffle(listed)
        if listed[0] is not urgent:
            return listed


def deadline_groups(items: tuple[QueueItem, ...]) -> list[dict[str, Any]]:
    """The queue as the verifier reads it: each claim and its deadline (ISO date, or None)."""
    return [
        {"claim_id": i.claim_id, "deadline": i.deadline.isoformat() if i.deadline else None} for i in items
    ]


# -- the spec and the process rules of a queue --------------------------------------------------------
def queue_spec(items: tuple[QueueItem, ...], world: Any) -> OutcomeSpec:
    """Every claim's own spec, each assertion scoped to its claim and named after it."""
    must: list[Assertion] = []
    seen: set[str] = set()
    for item in items:
        for assertion in outcome_spec(item.intent, world, item.claim_id).must:
            if assertion.collection == "violations":  # one, for the whole queue
                if assertion.name not in seen:
                    seen.add(assertion.name)
                    must.append(assertion)
                continue
            if assertion.name == "no_other_claim_closed":
                continue  # another claim of the queue may rightly be closed
            must.append(_scoped(assertion, item.claim_id))
    return OutcomeSpec(must=tuple(must))


def _scoped(assertion: Assertion, claim_id: str) -> Assertion:
    """The assertion about `claim_id` only: a claim sent is tied to it by its link field."""
    where = dict(assertion.where)
    links = ("replaces_claim_id", "resubmits_claim_id", "billed_from_claim_id")
    if "claim_id" in where or any(where.get(link) == claim_id for link in links):
        pass
    elif assertion.collection != "claims" or where.get("closed_now") is True:
        where["claim_id"] = claim_id
    elif where.get("frequency_code") == "7":
        where["replaces_claim_id"] = claim_id
    else:
        link = next((k for k in links if k in where), "claim_id")
        where[link] = claim_id
    return assertion.model_copy(update={"name": f"{claim_id.lower()}:{assertion.name}", "where": where})


def queue_required(items: tuple[QueueItem, ...]) -> tuple[CallConstraint, ...]:
    return tuple(rule for item in items for rule in item.intent.required)


def queue_forbidden(items: tuple[QueueItem, ...]) -> tuple[CallConstraint, ...]:
    """Per claim, every write its handling does not use (a needless escalation is `process.escalation`'s)."""
    return tuple(
        CallConstraint(tool=rule.tool, arguments={"claim_id": item.claim_id}, reason=rule.reason)
        for item in items
        for rule in item.intent.forbidden
        if rule.tool in WRITES
    )
