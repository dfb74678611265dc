"""A patient in a managed-care plan: Medicare denies CO-24 (charges covered under a managed-care
plan, e.g. Medicare Advantage) and the plan on the date of service is billed instead. Eligibility
decides: when it shows the patient's Medicare Advantage plan active on the date of service, that
plan is billed as primary; when it shows the plan ended before the date of service (the patient
went back to Original Medicare), no plan covers the service and Medicare's denial contradicts
its own eligibility answer: a human asks Medicare to reopen the claim. The work item, the 835, the
claim and the document list are the same either way.

The reference's handling (`work_managed_care`) and the generator family (`managed_care_case`).
"""

from __future__ import annotations

from datetime import timedelta

from envs.rcm import intents as want
from envs.rcm.casekit import Case, Ctx, recent, twin_variant, visit
from envs.rcm.desk import Desk, Facts, Script
from envs.rcm.playbooks import bill_coverage, eligibility_by_demographics, needs_human
from envs.rcm.vocab import COMMERCIAL

CARC_MANAGED_CARE = "24"
"""Charges are covered under a capitation agreement or managed-care plan."""


def work_managed_care(desk: Desk, facts: Facts) -> Script:
    """CO-24: find the patient's plans by demographics; the one active on the date of service is
    billed in its COB order. With none active, the denial contradicts eligibility: billing asks the
    payer to reopen the claim, naming the plan that ended and when."""
    found = yield from eligibility_by_demographics(desk, facts, None)
    others = [c for c in (found or {}).get("coverages", []) if c["payer_id"] != facts.claim["payer_id"]]
    active = [c for c in others if c["active_on_service_date"]]
    if active:
        return (yield from bill_coverage(desk, facts, active[0]))
    lapsed = [f"{c['plan_name']} ended {c['coverage_end']}" for c in others if c.get("coverage_end")]
    why = (
        f"the payer says a managed-care plan covers the service on {facts.dos.isoformat()}, but "
        f"eligibility shows none active then ({'; '.join(lapsed) or 'no other plan on file'}): "
        "ask the payer to reopen and process the claim"
    )
    return (yield from needs_human(desk, facts, why))


def managed_care_case(ctx: Ctx, enrolled: bool | None = None) -> Case:
    """Medicare denies CO-24. The patient's Medicare Advantage plan (a commercial payer's) covers the
    date of service (`enrolled`), or ended 5 to 60 days before it (`disenrolled`); `enrolled` forces
    one or the other from the same draw (twins)."""
    rng, b = ctx.rng, ctx.b
    variant = twin_variant(rng, "enrolled", "disenrolled", enrolled)
    plan = rng.choice(COMMERCIAL)
    dos, produced = recent(ctx)
    began = dos - timedelta(days=rng.randrange(400, 900))
    ended = dos - timedelta(days=rng.randrange(5, 60))
    coverage = b.cover(ctx.patient, plan, "primary", began, None if variant == "enrolled" else ended)
    name = f"{b.payer(plan).name} Medicare Advantage"
    b.coverages[coverage.coverage_id] = coverage.model_copy(update={"plan_name": name})
    claim = b.claim(ctx.patient, ctx.payer_id, [visit(ctx)], dos)
    b.deny(claim, produced, CARC_MANAGED_CARE)
    if variant == "enrolled":
        return ctx.case(claim, want.bill_other(claim.claim_id, plan, "primary"), f"variant:{variant}")
    lapsed = want.seen(
        "plan_ended",
        f"eligibility shows the {name} plan ended on {ended.isoformat()}, before the service: no "
        "managed-care plan covers it, against Medicare's CO-24",
        "check_eligibility",
        claim.claim_id,
        returns=(ended.isoformat(),),
    )
    return ctx.case(claim, want.human_review(claim.claim_id).citing(lapsed), f"variant:{variant}")
