"""The reference solver: works a denial as an experienced specialist would, through the tools only.

Reads first (the 835, the claim), checks the remittance makes sense (unknown codes and
contradictory lines go to a human), settles what is not a denial at all (contractual write-off,
patient share), and otherwise runs the playbook of the denial's CARC. It produces every task's
gold solution and is the `reference` baseline policy.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from envs.contract import Action, Turn
from envs.rcm.desk import CONTRACTUAL, PATIENT_SHARE, Desk, Facts, Script, facts_from, next_action
from envs.rcm.fee_schedule import is_fee_schedule
from envs.rcm.fee_schedule import rates as fee_rates
from envs.rcm.managed_care import CARC_MANAGED_CARE, work_managed_care
from envs.rcm.overpayments import work_overpayment
from envs.rcm.playbooks import PLAYBOOKS, needs_human, rules, rules_on
from envs.rcm.prompt_pay import interest_request
from envs.rcm.queues import QUEUE_KIND
from envs.rcm.rejections import front_end_rejection
from envs.rcm.units import CARC_UNITS, work_units
from envs.rollout.policy import PlanPolicy
from schemas.tasks import WorkItem

MAX_DEPTH = 2  # a duplicate's original is worked once; an original that is itself a duplicate is not chased


def specialist(item: WorkItem) -> Script:
    """The whole case, start to finish (every claim of a queue, by deadline)."""
    if item.kind == QUEUE_KIND:
        return (yield from work_queue(item))
    desk = Desk(item)
    return (yield from work(desk, desk.claim_id, depth=0))


def work_queue(item: WorkItem) -> Script:
    """Triage the queue (each claim's 835 and its payer's rules), then work the claims by
    deadline: the earliest first, claims with none last, ties in the listed order. When a payer's
    rules list dated changes, read the bulletins, and again before each claim with a deadline: a
    payer may publish a rule change while the queue is worked, and then the rules are read again
    and the claims left are triaged anew."""
    claims = [str(c["claim_id"]) for c in item.payload["claims"]]
    desk = Desk(item)
    seen: set[str] | None = None
    due: dict[str, date] = {}
    left = list(claims)
    while left:
        stale = not due
        if seen is not None and due[left[0]] < date.max:
            fresh = yield from bulletins(desk)
            stale, seen = bool(fresh - seen), fresh
        if stale:
            desk.forget_tool("get_payer_rules")
            for claim_id in left:
                due[claim_id] = (yield from deadline(desk, claim_id)) or date.max
            left.sort(key=lambda c: (due[c], claims.index(c)))
            if seen is None and any(r.get("rule_changes") for r in desk.answers("get_payer_rules")):
                seen = yield from bulletins(desk)  # a payer that dates its changes is watched
        yield from work(desk, left.pop(0), depth=0)
    return None


def bulletins(desk: Desk) -> Script:
    """The ids of the payer bulletins published so far (asked afresh every time)."""
    found = yield from desk.reread("get_payer_bulletins")
    return {str(b["bulletin_id"]) for b in (found or {}).get("bulletins", [])}


CORRECTED = frozenset({"16", "4", "31"})
"""Denials fixed by a corrected claim, which must reach the payer within its filing limit."""
APPEALED = frozenset({"50", "29", "197", "15"})
"""Denials worked by appeal (or a request the payer times the same way)."""


def deadline(desk: Desk, claim_id: str) -> Script:
    """The last day the payer accepts the move the claim needs, read off its 835 and the payer's
    rules in effect on its date of service: a corrected claim's filing limit from the date of
    service, an appeal's window from the notice's presumed receipt; None when settling it has no
    deadline, or when the deadline has passed."""
    found = yield from desk.read("get_remittance", claim_id=claim_id)
    remits = (found or {}).get("remittances") or []
    if not remits:
        return None
    remit = remits[-1]
    carcs = {
        a["reason_code"]
        for line in remit["lines"]
        for a in line["adjustments"]
        if not (a["group_code"] == "PR" or a["reason_code"] in CONTRACTUAL)
    }
    if not carcs & (CORRECTED | APPEALED):
        return None
    served = min(date.fromisoformat(line["service_date"]) for line in remit["lines"])
    payer_rules = yield from rules_on(desk, str(remit["payer_id"]), served)
    if not payer_rules:
        return None
    if carcs & CORRECTED:
        last = served + timedelta(days=int(payer_rules["timely_filing_days"]))
    else:
        notice = date.fromisoformat(remit["production_date"])
        days = int(payer_rules["appeal_window_days"]) + int(payer_rules.get("notice_receipt_days", 0))
        last = notice + timedelta(days=days)
    return last if last >= desk.today else None  # past: the move is gone, what is left has no deadline


def work(desk: Desk, claim_id: str, *, depth: int) -> Script:
    """Read a claim and its latest remittance, then resolve it."""
    remits = yield from desk.read("get_remittance", claim_id=claim_id)
    claim = yield from desk.read("get_claim", claim_id=claim_id)
    if claim is not None and remits is not None and not remits["remittances"]:
        return (yield from front_end_rejection(desk, claim))
    if not remits or not remits["remittances"] or claim is None:
        return (
            yield from desk.escalate(claim_id, "billing", "review", "no readable remittance or claim on file")
        )
    facts = facts_from(claim, remits["remittances"][-1])
    problem = inconsistency(facts)
    if problem:
        return (yield from needs_human(desk, facts, problem))
    if facts.balance < -0.005:  # paid more than the charge allows: a credit balance owed back
        return (yield from work_overpayment(desk, facts))
    if not facts.denials:
        return (yield from settle(desk, facts))
    carc = facts.denials[0].carc
    if carc == "18":
        return (yield from duplicate(desk, facts, depth))
    if carc == CARC_UNITS:
        return (yield from work_units(desk, facts))
    if carc == CARC_MANAGED_CARE:
        return (yield from work_managed_care(desk, facts))
    playbook = PLAYBOOKS.get(carc)
    if playbook is None:
        return (yield from needs_human(desk, facts, f"no playbook for CARC {carc}"))
    return (yield from playbook(desk, facts))


def inconsistency(facts: Facts) -> str | None:
    """Why the remittance cannot be worked as is, or None."""
    unknown = sorted({a.carc for a in facts.adjustments if not a.known})
    if unknown:
        return f"remittance carries unknown or retired CARC(s) {', '.join(unknown)}"
    for line in facts.remit["lines"]:
        adjusted = sum(a["amount"] for a in line["adjustments"])
        if abs(line["paid"] + adjusted - line["charge"]) > 0.005:
            return (
                f"line {line['line_number']} is contradictory: paid {line['paid']:.2f} and adjusted "
                f"{adjusted:.2f} against a charge of {line['charge']:.2f}"
            )
    return None


def settle(desk: Desk, facts: Facts) -> Script:
    """Not a denial: bill the patient their share, write off the contractual amount; but a payer
    that allowed less than the contracted rate on file underpaid: appeal that instead."""
    shares: dict[str, float] = defaultdict(float)
    contractual = 0.0
    for adj in facts.adjustments:
        if adj.group == "PR" and adj.carc in PATIENT_SHARE:
            shares[adj.carc] += adj.amount
        elif adj.group == "CO" and adj.carc in CONTRACTUAL:
            contractual += adj.amount
    if contractual > 0.005:
        payer_rules = yield from rules(desk, facts)
        schedule, exhibits = dict((payer_rules or {}).get("fee_schedule", {})), []
        if not any(line["procedure_code"] in schedule for line in facts.remit["lines"]):
            schedule, exhibits = yield from contract_on_file(desk, facts)
        short = underpayments(facts, schedule)
        if short:
            return (yield from appeal_underpayment(desk, facts, short, exhibits))
    secondary = (yield from next_payer(desk, facts)) if shares else None
    if secondary is None:
        for carc, amount in shares.items():  # first-seen order, as on the remittance
            yield from desk.transfer(facts, amount, PATIENT_SHARE[carc])
    if facts.remit.get("trace_number") is not None:
        # A corrected payment beside the reversal of a posted one: post what the correction leaves on
        # the balance, counting what the first payment's posting already wrote off.
        contractual = min(contractual, round(facts.balance - sum(shares.values()), 2))
    if contractual > 0.005:
        yield from desk.write_off(facts, contractual, "contractual", "contractual adjustment (fee schedule)")
        interest = interest_request(facts.claim, facts.remit, payer_rules or {})
        if interest is not None:
            yield from desk.appeal(facts, "prompt_pay_interest", interest, [])
    if secondary is not None:  # the patient's share goes to the secondary first, with our adjudication
        return (
            yield from desk.write(
                "bill_other_payer",
                claim_id=facts.claim_id,
                payer_id=secondary["payer_id"],
                member_id=secondary["member_id"],
                payer_sequence=secondary["cob_order"],
            )
        )
    return None


_COB_RANK = {"primary": 0, "secondary": 1, "tertiary": 2}


def next_payer(desk: Desk, facts: Facts) -> Script:
    """The patient's active coverage after this claim's payer in COB order (from the 271's other
    coverage), or None."""
    claim = facts.claim
    found = yield from desk.read(
        "check_eligibility",
        payer_id=claim["payer_id"],
        member_id=claim["member_id"],
        service_date=facts.dos.isoformat(),
    )
    rank = _COB_RANK[str(claim.get("payer_sequence", "primary"))]
    later = [
        c
        for c in (found or {}).get("other_coverage", [])
        if c["active_on_service_date"] and _COB_RANK[c["cob_order"]] > rank
    ]
    return later[0] if later else None


def underpayments(facts: Facts, schedule: dict[str, float]) -> list[tuple[str, float, float]]:
    """(code, contracted, allowed) of each line the payer allowed below its contracted rate."""
    found = []
    for line in facts.remit["lines"]:
        rate = schedule.get(line["procedure_code"])
        if rate is None:
            continue
        contracted = round(float(rate) * int(line["units"]), 2)
        allowed = round(
            line["paid"] + sum(a["amount"] for a in line["adjustments"] if a["group_code"] == "PR"), 2
        )
        if allowed < contracted - 0.005:
            found.append((str(line["procedure_code"]), contracted, allowed))
    return found


def contract_on_file(desk: Desk, facts: Facts) -> Script:
    """(rates, document ids) of the payer's fee schedule kept as a document, when one is on file."""
    found = yield from desk.read("get_documents", claim_id=facts.claim_id)
    payer = str(facts.remit.get("payer_name") or "")
    for summary in (found or {}).get("documents", []):
        if payer and is_fee_schedule(summary, payer):
            full = yield from desk.read("read_document", document_id=summary["document_id"])
            listed = fee_rates(full["document"], facts.dos) if full else {}
            if listed:
                return listed, [str(summary["document_id"])]
    return {}, []


def appeal_underpayment(
    desk: Desk, facts: Facts, short: list[tuple[str, float, float]], exhibits: list[str]
) -> Script:
    """Appeal the shortfall, citing the contracted rate of each underpaid line and the amount owed
    (with the fee schedule attached when it is a document)."""
    owed = round(sum(contracted - allowed for _, contracted, allowed in short), 2)
    lines = "; ".join(
        f"{code} is contracted at ${contracted:.2f} under our fee schedule and was allowed ${allowed:.2f}"
        for code, contracted, allowed in short
    )
    argument = (
        f"{lines}. The payer underpaid the contracted rate by ${owed:.2f}: please reprocess and pay it."
    )
    if exhibits:
        argument += f" The fee schedule ({', '.join(exhibits)}) is attached."
    return (yield from desk.appeal(facts, "underpayment", argument, exhibits))


def duplicate(desk: Desk, facts: Facts, depth: int) -> Script:
    """CO-18: original paid, or still in process → close, no resubmission; original denied → work
    the original."""
    found = yield from desk.read("find_original_claim", claim_id=facts.claim_id)
    if not found or not found["found"]:
        return (yield from needs_human(desk, facts, "duplicate denial, but no original claim found"))
    if found["original_status"] in ("paid", "partially_paid"):
        return (
            yield from desk.write(
                "close_claim",
                claim_id=facts.claim_id,
                reason="duplicate_of_paid_original",
                note=f"original {found['original_claim_id']} was paid",
            )
        )
    if (
        found["original_status"] in ("submitted", "accepted", "pending")
        and not found["original_adjustment_codes"]
    ):
        return (
            yield from desk.write(
                "close_claim",
                claim_id=facts.claim_id,
                reason="duplicate_of_original_in_process",
                note=f"original {found['original_claim_id']} is {found['original_status']} at the payer",
            )
        )
    if depth >= MAX_DEPTH - 1:
        return (yield from needs_human(desk, facts, "duplicate of a duplicate"))
    return (yield from work(desk, found["original_claim_id"], depth=depth + 1))


def reference_plan(item: WorkItem, turns: tuple[Turn, ...]) -> Action:
    """The specialist as a stateless policy."""
    return next_action(specialist(item), turns)


REFERENCE = PlanPolicy("reference", reference_plan)
"""The reference specialist as a policy."""
