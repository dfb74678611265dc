"""Dated payer rules in generated worlds: a payer changed a rule on a date of service, and claims
dated before and after the change need different handling.

`rule_change_dated` is one claim under a payer whose change is published: the retro-authorization
window or the appeal window changed, and the claim falls on either side of the effective date.
`rule_change_midqueue` is a work queue where the payer's bulletin is still pending when the work
starts and is published after the first claim is acted on (`Case.publications`, timed by
`envs.rcm.tasks`): a claim dated before the change keeps the old appeal window, one dated after
falls under the new one.
"""

from __future__ import annotations

from datetime import date, timedelta

from adapters.rcm.models import Claim
from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx, QueueItem, coded, record
from envs.rcm.charts import necessity_letter
from envs.rcm.deciding import no_auth_path
from envs.rcm.faults import Publication
from envs.rcm.intents import Intent
from envs.rcm.queues import EASY, _listing, _patient
from envs.rcm.worldgen import LineSpec

PAYERS = ("ACME", "BLUE", "NWND")
"""Payers with a retro-authorization window and an appeal window wide enough to cut."""


def rule_change_dated(ctx: Ctx) -> Case:
    """One claim under a dated rule change the payer has published."""
    story = ctx.rng.choice(("retro", "appeal"))
    before = ctx.rng.random() < 0.5
    case = _retro(ctx, before) if story == "retro" else _appeal(ctx, before)
    case.tags = (*case.tags, f"dated:{story}", f"dated:{'before' if before else 'after'}")
    case.category = "197" if story == "retro" else "50"
    return case


def _retro(ctx: Ctx, before: bool) -> Case:
    """CO-197: the retro-authorization window was cut on a date. A service before it keeps the old
    window (request, then resubmit with the number); one after it is past the new one (write off)."""
    rng, b = ctx.rng, ctx.b
    old = b.payer(ctx.payer_id).rules.retro_auth_window_days
    new = rng.randrange(3, 6)
    effective = rng.randrange(new + 3, old - 1)
    late = rng.randrange(effective + 1, old) if before else rng.randrange(new + 1, effective)
    _announce(ctx, b.ago(effective), "retro", retro_auth_window_days=new)
    claim = b.claim(ctx.patient, ctx.payer_id, [LineSpec(rng.choice(("11042", "20610")))], b.ago(late))
    record(ctx, claim, coded(claim))
    b.deny(claim, b.ago(rng.randrange(1, late)), "197")
    if before:
        still_open = want.rules_read(
            ctx.payer_id,
            "the dated rules keep the old retro window for this date of service",
            claim.claim_id,
            "request_authorization",
        )
        return ctx.case(claim, want.retro_auth(claim.claim_id, approved=True).citing(still_open))
    intent = want.write_off(claim.claim_id, "no_authorization", claim.total_charge, b.limit)
    return ctx.case(claim, intent.citing(*no_auth_path(ctx.payer_id, claim.claim_id)))


def _appeal(ctx: Ctx, before: bool) -> Case:
    """CO-50 with records and a signed LMN: the appeal window was halved on a date of service."""
    claim, _, new = _necessity_claim(ctx, ctx.payer_id)
    served = claim.first_service_date
    effective = (
        served + timedelta(days=ctx.rng.randrange(1, 20))
        if before
        else served - timedelta(days=ctx.rng.randrange(0, 60))
    )
    _announce(ctx, effective, "appeal", appeal_window_days=new)
    return ctx.case(claim, _necessity_intent(ctx, claim, open_window=before))


def _necessity_claim(
    ctx: Ctx, payer_id: str, notice_days: tuple[int, int] | None = None, lead: tuple[int, int] = (10, 30)
) -> tuple[Claim, date, int]:
    """A CO-50 claim with records and a signed LMN whose notice is `notice_days` ago (default: older
    than half the payer's appeal window, inside all of it), the service `lead` days before it;
    returns it, the notice date and the halved window."""
    rng, b = ctx.rng, ctx.b
    old = b.payer(payer_id).rules.appeal_window_days
    new = new_window(old)
    notice = b.ago(rng.randrange(*(notice_days or (new + 3, old - 5))))
    dos = notice - timedelta(days=rng.randrange(*lead))
    code = rng.choice(("82607", "97110", "93000", "20610"))
    claim = b.claim(ctx.patient, payer_id, [LineSpec(code)], dos)
    record(ctx, claim, coded(claim))
    b.document(
        ctx.patient,
        claim,
        "letter_of_medical_necessity",
        "Letter of medical necessity",
        necessity_letter(ctx.patient.first_name, code, claim.diagnosis_codes, b.clinicians[0]),
    )
    b.deny(claim, notice, "50")
    return claim, notice, new


def _necessity_intent(ctx: Ctx, claim: Claim, *, open_window: bool) -> Intent:
    window = want.rules_read(
        ctx.payer_id,
        f"the appeal window in effect for this date of service is {'open' if open_window else 'closed'}",
        claim.claim_id,
        "submit_appeal",
        *want.WRITE_OFF,
    )
    if not open_window:
        intent = want.write_off(claim.claim_id, "not_medically_necessary", claim.total_charge, ctx.b.limit)
        return intent.citing(window)
    docs = sorted(d.document_id for d in ctx.b.documents.values() if d.claim_id == claim.claim_id)
    records = [d for d in docs if ctx.b.documents[d].kind == "medical_record"]
    letters = [d for d in docs if ctx.b.documents[d].kind == "letter_of_medical_necessity"]
    return want.appeal(claim.claim_id, "medical_necessity", records + letters).citing(window)


_NOTICES = {
    "telehealth": (
        "Telehealth services: modifier 95 with place of service 10",
        "For dates of service on or after {effective}, telehealth services delivered to a patient at "
        "home are billed with place of service 10 and modifier 95.",
    ),
    "retro": (
        "Retro-authorization window shortened to {value} days",
        "For dates of service on or after {effective}, retro-authorization requests must reach us "
        "within {value} days of the date of service. Earlier dates of service keep the window in "
        "effect when they were rendered.",
    ),
    "appeal": (
        "Appeal filing limit changed to {value} days",
        "For dates of service on or after {effective}, first-level appeals must be filed within "
        "{value} days of the remittance date. Earlier dates of service keep the limit in effect "
        "when they were rendered.",
    ),
}


def _announce(ctx: Ctx, effective: date, story: str, *, published: bool = True, **rules: object) -> str:
    """The payer's dated change and its bulletin (published some days before today, or pending)."""
    title, text = _NOTICES[story]
    value = next(iter(rules.values()))
    day = ctx.b.ago(ctx.rng.randrange(1, 30)) if published else None
    return ctx.b.dated_change(
        ctx.payer_id,
        effective,
        day,
        title.format(value=value),
        text.format(value=value, effective=effective.isoformat()),
        **rules,
    )


def rule_change_midqueue(ctx: Ctx) -> Case:
    """A queue of 4 or 5 claims; two CO-50 claims of one payer, one dated before and one after the
    payer's halved appeal window, whose bulletin is published once the first claim is acted on. The
    payer published an older bulletin (telehealth coding) before the work starts, so a specialist
    knows it as one that changes its rules.

    The claim dated after the change has the later notice, so even under the old rule it is not the
    first one due: the first write lands on the claim that keeps its window, before the bulletin."""
    rng, b = ctx.rng, ctx.b
    payer_id = rng.choice(PAYERS)
    old = b.payer(payer_id).rules.appeal_window_days
    kept = _patient(ctx, payer_id)
    kept_claim, kept_notice, new = _necessity_claim(kept, payer_id, (new_window(old) + 6, old - 5))
    cut = _patient(ctx, payer_id)
    since = (b.today - kept_notice).days
    cut_claim, _, _ = _necessity_claim(cut, payer_id, (new + 3, since), lead=(3, 10))
    gap = (cut_claim.first_service_date - kept_claim.first_service_date).days
    effective = kept_claim.first_service_date + timedelta(days=rng.randrange(1, gap + 1))
    watched = Ctx(b, rng, cut.patient, payer_id)
    earlier = b.ago(rng.randrange(300, 700))  # an older change, before every claim's service
    _announce(watched, earlier, "telehealth", telehealth_requires_modifier_95=True)
    bulletin = _announce(watched, effective, "appeal", published=False, appeal_window_days=new)
    deadline = b.payer(payer_id).rules.appeal_deadline(kept_notice)
    items = [
        QueueItem(kept_claim.claim_id, _necessity_intent(kept, kept_claim, open_window=True), deadline),
        QueueItem(cut_claim.claim_id, _necessity_intent(cut, cut_claim, open_window=False), None),
    ]
    items += [rng.choice(EASY)(ctx) for _ in range(rng.randrange(2, 4))]
    listed = _listing(rng, items)
    return Case(
        b.build(),
        listed[0].claim_id,
        Intent("queue"),
        (f"queue:size:{len(items)}", "queue:due:1", "dated:midqueue"),
        queue=tuple(listed),
        publications=[Publication(bulletin_id=bulletin, after_calls=0)],
    )


def new_window(old: int) -> int:
    """The payer's halved appeal window."""
    return old // 2
