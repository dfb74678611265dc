"""Twin edits of corrected claims, the right payer, dated rules, telehealth, work queues and the edge
families whose evidence decides (the patient's share and a duplicate's original: `envs.rcm.share_edits`).

Each edit takes a generated case and returns its twin (the world with one piece of evidence
changed and the handling that evidence calls for), or None when the case cannot take it. What
changes is never visible to a blind desk (the work item, the 835, the claim and the document
list stay): a chart's text, the member id or payer eligibility returns, a payer's rule or the
date a dated rule takes effect, the appeal window of one claim of a queue.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta

from adapters.rcm import World
from envs.rcm import intents as want
from envs.rcm.casekit import Case, QueueItem
from envs.rcm.deciding import contract_read, coverage_ended, no_auth_path, read_doc, rules_read
from envs.rcm.share_edits import (
    original_coding_not_recorded,
    original_paid,
    secondary_active,
    secondary_ended,
)
from envs.rcm.twin_documents import chart_without_coding
from envs.rcm.vocab import COMMERCIAL
from envs.rcm.vocab import member_id as make_member_id
from envs.rcm.world_edits import (
    carcs_of,
    edited_rules,
    is_active,
    necessity_intent,
    notice_date,
    retagged,
    with_coverage,
)

Edit = Callable[[Case, random.Random, tuple[int, ...]], Case | None]
"""(case, the twin's random source, the recipe's typical rule values) → the twin, or None."""


# -- corrected claims: CO-16, CO-4, CO-31 --------------------------------------------------------
def coding_not_recorded(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The chart records no coding and names no provider: nothing on file says what to correct,
    so a coder decides (escalate to coding), never a guessed correction."""
    made = chart_without_coding(case.world, case.claim_id)
    if made is None:
        return None
    world, chart_id = made
    empty = read_doc(
        chart_id,
        "the chart records no coding or provider to correct from",
        case.claim_id,
        "escalate_to_human",
    )
    return replace(case, world=world, intent=want.escalation(case.claim_id, "coding").citing(empty))


def member_id_reissued(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The payer reissued the patient's member id: eligibility by demographics returns another id
    than the one the first case's correction carries."""
    world = case.world
    claim = world.claims[case.claim_id]
    coverages = [
        c
        for c in world.coverages.values()
        if c.patient_id == claim.patient_id and c.payer_id == claim.payer_id
    ]
    if len(coverages) != 1:
        return None
    new = make_member_id(rng, world.payers[claim.payer_id])
    if new in (coverages[0].member_id, claim.member_id):
        return None
    world = with_coverage(world, coverages[0].model_copy(update={"member_id": new}))
    intent = want.replacement(
        claim.claim_id, "the member id eligibility returns", **{"corrections.member_id": new}
    )
    return replace(case, world=world, intent=intent)


def telehealth_rule_absent(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The payer never made modifier 95 a rule and the chart's coding matches the claim: nothing on
    file says which modifier is wrong, so a coder decides."""
    claim = case.world.claims[case.claim_id]
    world = edited_rules(case.world, claim.payer_id, telehealth_requires_modifier_95=False)
    if world is None:
        return None
    absent = rules_read(
        claim.payer_id,
        "the payer's rules require no modifier 95 for telehealth, and the chart matches the claim",
        claim.claim_id,
        "escalate_to_human",
    )
    return replace(case, world=world, intent=want.escalation(claim.claim_id, "coding").citing(absent))


# -- the right payer: CO-22, CO-109 --------------------------------------------------------------
def covered_by_another(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The patient's other coverage on the date of service is with another commercial payer than
    the first case's: eligibility names the payer to bill."""
    world = case.world
    claim = world.claims[case.claim_id]
    others = [
        c
        for c in world.coverages.values()
        if c.patient_id == claim.patient_id
        and c.payer_id != claim.payer_id
        and is_active(c, claim.first_service_date)
    ]
    if len(others) != 1:
        return None
    old = others[0]
    choices = [p for p in COMMERCIAL if p not in (claim.payer_id, old.payer_id) and p in world.payers]
    if not choices:
        return None
    new = rng.choice(choices)
    payer = world.payers[new]
    moved = old.model_copy(
        update={
            "payer_id": new,
            "member_id": make_member_id(rng, payer),
            "group_number": f"GRP-{new}-{rng.randrange(100, 999)}",
            "plan_name": f"{payer.name} {old.plan_name.rsplit(' ', 1)[-1]}",
        }
    )
    intent = want.bill_other(claim.claim_id, new, old.cob_order)
    tags = retagged(case.tags, "primary:", new)
    return replace(case, world=with_coverage(world, moved), intent=intent, tags=tags)


# -- dated rule changes ---------------------------------------------------------------------------
def _moved_change(world: World, payer_id: str, effective: date, *, pending: bool) -> World | None:
    """The world whose (one published, or one pending) dated change of the payer takes effect on
    `effective` instead, its bulletin saying so."""
    payer = world.payers[payer_id]
    found = [
        (i, c)
        for i, c in enumerate(payer.rule_changes)
        if c.bulletin_id in world.bulletins
        and (world.bulletins[c.bulletin_id].published_date is None) == pending
    ]
    if len(found) != 1:
        return None
    index, change = found[0]
    bulletin = world.bulletins[str(change.bulletin_id)]
    old = change.effective_date.isoformat()
    if old not in bulletin.text:
        return None
    changes = list(payer.rule_changes)
    changes[index] = change.model_copy(update={"effective_date": effective})
    edited = payer.model_copy(update={"rule_changes": tuple(changes)})
    moved = bulletin.model_copy(
        update={"effective_date": effective, "text": bulletin.text.replace(old, effective.isoformat())}
    )
    return world.model_copy(
        update={
            "payers": {**world.payers, payer_id: edited},
            "bulletins": {**world.bulletins, bulletin.bulletin_id: moved},
        }
    )


def dated_other_side(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The payer's dated change takes effect on the other side of the claim's date of service: a
    claim that kept the old rule falls under the new one, and one under the new rule keeps the old."""
    world = case.world
    claim = world.claims[case.claim_id]
    dos = claim.first_service_date
    changes = world.payers[claim.payer_id].rule_changes
    if len(changes) != 1:
        return None
    before = changes[0].effective_date > dos  # the first case keeps the old rule
    late = (world.today - dos).days
    if before:
        effective = dos - timedelta(days=rng.randrange(0, 20))
    elif late > 2:
        effective = dos + timedelta(days=rng.randrange(1, min(late, 20)))
    else:
        return None
    edited = _moved_change(world, claim.payer_id, effective, pending=False)
    if edited is None:
        return None
    keeps = not before  # the twin keeps the old rule
    if "dated:retro" in case.tags:
        if keeps:
            still_open = rules_read(
                claim.payer_id,
                "the dated rules keep the old retro window for this date of service",
                claim.claim_id,
                "request_authorization",
            )
            intent = want.retro_auth(claim.claim_id, approved=True).citing(still_open)
        else:
            limit = world.practice.write_off_approval_limit
            intent = want.write_off(claim.claim_id, "no_authorization", claim.total_charge, limit).citing(
                *no_auth_path(claim.payer_id, claim.claim_id)
            )
    else:
        state = "open" if keeps else "closed"
        why = f"the appeal window in effect for this date of service is {state}"
        intent = necessity_intent(edited, claim.claim_id, open_window=keeps, why=why)
    side = "dated:before" if keeps else "dated:after"
    tags = tuple(side if t in ("dated:before", "dated:after") else t for t in case.tags)
    return replace(case, world=edited, intent=intent, tags=tags)


def midqueue_window_kept(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The bulletin published mid-queue takes effect after both CO-50 claims' dates of service:
    the claim that fell under the halved window keeps the old one, and is appealed by its deadline."""
    world = case.world
    pending = [
        p.payer_id
        for p in world.payers.values()
        for c in p.rule_changes
        if c.bulletin_id in world.bulletins and world.bulletins[c.bulletin_id].published_date is None
    ]
    if len(pending) != 1:
        return None
    payer_id = pending[0]
    change = next(
        c
        for c in world.payers[payer_id].rule_changes
        if c.bulletin_id and world.bulletins[c.bulletin_id].published_date is None
    )
    cut = [
        i
        for i in case.queue
        if world.claims[i.claim_id].payer_id == payer_id
        and "50" in carcs_of(world, i.claim_id)
        and world.claims[i.claim_id].first_service_date >= change.effective_date
    ]
    if len(cut) != 1:
        return None
    item = cut[0]
    effective = world.claims[item.claim_id].first_service_date + timedelta(days=rng.randrange(1, 10))
    edited = _moved_change(world, payer_id, min(effective, world.today), pending=True)
    if edited is None:
        return None
    claim = edited.claims[item.claim_id]
    deadline = (
        edited.payers[payer_id]
        .rules_on(claim.first_service_date)
        .appeal_deadline(notice_date(edited, claim.claim_id))
    )
    why = "the appeal window in effect for this date of service is open"
    kept = QueueItem(
        claim.claim_id, necessity_intent(edited, claim.claim_id, open_window=True, why=why), deadline
    )
    return _queue_twin(case, edited, item, kept)


# -- work queues -----------------------------------------------------------------------------------
def queue_appeal_closed(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """One CO-50 claim of the queue (records and a signed letter on file) is under a payer whose
    appeal window, measured from the notice's presumed receipt, has closed: it is written off and
    has no deadline, so the order the others are worked in changes too."""
    world = case.world
    fifty = [i for i in case.queue if "50" in carcs_of(world, i.claim_id) and i.intent.resolution == "appeal"]
    payers = [world.claims[i.claim_id].payer_id for i in case.queue if "50" in carcs_of(world, i.claim_id)]
    alone = [i for i in fifty if payers.count(world.claims[i.claim_id].payer_id) == 1]
    alone = [i for i in alone if world.claims[i.claim_id].payer_id != "MCR"]  # Medicare's 120 days is law
    if not alone:
        return None
    item = rng.choice(alone)
    payer_id = world.claims[item.claim_id].payer_id
    rules = world.payers[payer_id].rules
    since = (world.today - notice_date(world, item.claim_id)).days - rules.notice_receipt_days
    under = [v for v in typical if v < since]
    edited = edited_rules(world, payer_id, appeal_window_days=max(under)) if under else None
    if edited is None:
        return None
    closed = QueueItem(
        item.claim_id,
        necessity_intent(
            edited, item.claim_id, open_window=False, why="the payer's appeal window has closed"
        ),
        None,
    )
    return _queue_twin(case, edited, item, closed)


def _queue_twin(case: Case, world: World, old: QueueItem, new: QueueItem) -> Case | None:
    """The queue with one item's handling changed, listed in the same order; None when the twin's
    most urgent claim would be listed first (working the list top to bottom must stay wrong)."""
    items = tuple(new if i is old else i for i in case.queue)
    due = [i for i in items if i.deadline is not None]
    if due and min(due, key=lambda i: i.deadline or date.max) is items[0]:
        return None
    tags = retagged(case.tags, "queue:due:", str(len(due)))
    return replace(case, world=world, queue=items, tags=tags)


# -- edge families whose evidence decides ---------------------------------------------------------
def coverage_really_ended(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """Eligibility agrees with the CO-27: the coverage ended before the service and nothing else
    covers it, so the balance is the patient's (not a human's conflict to resolve)."""
    world = case.world
    claim = world.claims[case.claim_id]
    dos = claim.first_service_date
    mine = [c for c in world.coverages.values() if c.patient_id == claim.patient_id]
    if len(mine) != 1 or mine[0].payer_id != claim.payer_id or mine[0].start_date >= dos - timedelta(days=60):
        return None
    ended = dos - timedelta(days=rng.randrange(5, 60))
    world = with_coverage(world, mine[0].model_copy(update={"end_date": ended}))
    ended_on = coverage_ended(claim.claim_id, ended, none_other=True)
    intent = want.transfer(claim.claim_id, "coverage_terminated").citing(ended_on)
    return replace(case, world=world, intent=intent)


def appeal_window_open(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The payer's appeal window is longer than the time since the notice's presumed receipt: the
    documented necessity is appealed, not written off."""
    world = case.world
    claim = world.claims[case.claim_id]
    rules = world.payers[claim.payer_id].rules
    since = (world.today - notice_date(world, claim.claim_id)).days - rules.notice_receipt_days
    over = [v for v in typical if v > since + 1]
    edited = edited_rules(world, claim.payer_id, appeal_window_days=min(over)) if over else None
    if edited is None or claim.payer_id == "MCR":
        return None
    intent = necessity_intent(
        edited, claim.claim_id, open_window=True, why="the payer's appeal window is still open"
    )
    return replace(case, world=edited, intent=intent)


def rate_met(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The contracted rate on file is what the payer allowed: the CO-45 is contractual, written
    off, not an underpayment to appeal."""
    world = case.world
    claim = world.claims[case.claim_id]
    remit = world.latest_remittance(claim.claim_id)
    if remit is None or len(claim.lines) != 1 or claim.lines[0].units != 1:
        return None
    co45 = round(sum(a.amount for ln in remit.lines for a in ln.adjustments if a.reason_code == "45"), 2)
    code = claim.lines[0].procedure_code
    payer = world.payers[claim.payer_id]
    if code not in payer.rules.fee_schedule:
        return None
    schedule = {**payer.rules.fee_schedule, code: round(claim.total_charge - co45, 2)}
    edited = edited_rules(world, claim.payer_id, fee_schedule=schedule)
    if edited is None:
        return None
    limit = world.practice.write_off_approval_limit
    intent = want.write_off(claim.claim_id, "contractual", co45, limit).citing(
        contract_read(claim.payer_id, claim.claim_id)
    )
    return replace(case, world=edited, intent=intent)


def auth_of_this_payer(case: Case, rng: random.Random, typical: tuple[int, ...]) -> Case | None:
    """The approved authorization on file is this payer's, not the secondary's: it goes on the
    corrected claim."""
    world = case.world
    claim = world.claims[case.claim_id]
    codes = {line.procedure_code for line in claim.lines}
    theirs = [
        a
        for a in world.authorizations.values()
        if a.patient_id == claim.patient_id
        and a.payer_id != claim.payer_id
        and a.status == "approved"
        and a.service_date == claim.first_service_date
        and codes & set(a.procedure_codes)
    ]
    if len(theirs) != 1 or theirs[0].auth_number is None:
        return None
    auth = theirs[0].model_copy(update={"payer_id": claim.payer_id})
    world = world.model_copy(update={"authorizations": {**world.authorizations, auth.auth_id: auth}})
    intent = want.replacement(
        claim.claim_id,
        "put the auth on file on the claim",
        **{"corrections.prior_auth_number": auth.auth_number},
    )
    return replace(case, world=world, intent=intent)


EDITS: dict[str, Edit] = {
    "coding_not_recorded": coding_not_recorded,
    "member_id_reissued": member_id_reissued,
    "telehealth_rule_absent": telehealth_rule_absent,
    "covered_by_another": covered_by_another,
    "dated_other_side": dated_other_side,
    "midqueue_window_kept": midqueue_window_kept,
    "queue_appeal_closed": queue_appeal_closed,
    "coverage_really_ended": coverage_really_ended,
    "appeal_window_open": appeal_window_open,
    "rate_met": rate_met,
    "auth_of_this_payer": auth_of_this_payer,
    "secondary_active": secondary_active,
    "secondary_ended": secondary_ended,
    "original_coding_not_recorded": original_coding_not_recorded,
    "original_paid": original_paid,
}
"""Recipe `edit` → the edit that makes the twin (the recipe's `move` names the handling it writes)."""
