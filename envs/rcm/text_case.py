"""The case an rcm text is read against: what the world holds about its claim before the episode
(gathered once per task and claim), and what the calls before the text returned (once per
trajectory), as the `CaseFacts` of `envs.verifiers.grounding`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from envs.contract import Turn
from envs.rcm.grounding_data import DECISIONS, TEXT_FIELDS, grounding_data
from envs.verifiers.grounding import CaseFacts, Harvest, as_cents, combined, party_names
from schemas.tasks import Task
from schemas.tools import ToolOutcome

_CARC_FORMS = r"(?:\b{g}[-\s]?|\bCARC\s*|\breason code\s*){c}\b"


@dataclass(frozen=True)
class ClaimFacts:
    """What the world holds about one claim before the episode: the part of a text's case that no
    read changes, built once per task and claim."""

    claim: Mapping[str, Any]
    identity: frozenset[str]
    harvest: Harvest
    money: frozenset[Decimal]
    auths: tuple[Mapping[str, Any], ...]
    anchors: frozenset[date]
    day_counts: frozenset[int]
    parties: Mapping[str, frozenset[str]]
    cited_forms: tuple[re.Pattern[str], ...]


_CACHE_SIZE = 1024
_claims: dict[tuple[int, str], tuple[Task, ClaimFacts | None]] = {}


def claim_facts(task: Task, claim_id: str) -> ClaimFacts | None:
    """The claim's facts in the task's initial world (None when it has no such claim); a task is
    scored many times (every rollout of a training group), so they are kept per task object."""
    key = (id(task), claim_id)
    hit = _claims.get(key)
    if hit is not None and hit[0] is task:
        return hit[1]
    if len(_claims) >= _CACHE_SIZE:
        _claims.clear()
    facts = _claim_facts(task, claim_id)
    _claims[key] = (task, facts)
    return facts


def _claim_facts(task: Task, claim_id: str) -> ClaimFacts | None:
    data = grounding_data()
    world = task.initial_world
    claim = world.get("claims", {}).get(claim_id)
    if claim is None:
        return None
    patient, payer = claim.get("patient_id"), str(claim.get("payer_id"))
    remits = [r for r in world.get("remittances", {}).values() if r.get("claim_id") == claim_id]
    related = [
        c
        for c in world.get("claims", {}).values()
        if claim_id in _links(c) or c.get("claim_id") in _links(claim)
    ]
    docs = [d for d in world.get("documents", {}).values() if d.get("patient_id") == patient]
    auths = tuple(a for a in world.get("authorizations", {}).values() if a.get("patient_id") == patient)
    payers = world.get("payers", {})
    bulletins = world.get("bulletins", {})
    harvest = Harvest().add([claim, related, docs, auths, bulletins, world.get("today"), remits])
    harvest.add(task.work_item.payload)
    money = Harvest().add([claim.get("lines", []), remits, task.work_item.payload])
    money.add(payers.get(payer, {}).get("rules", {}).get("fee_schedule", {}))
    found = Harvest()
    found.add([[line.get("service_date") for line in claim.get("lines", [])], claim.get("submitted_date")])
    found.add([world.get("today"), [r.get("production_date") for r in remits]])
    found.add([a.get("ack_date") for a in claim.get("acknowledgments", [])])
    return ClaimFacts(
        claim=claim,
        identity=frozenset({claim_id, *(str(r.get("payer_claim_control_number")) for r in remits)}),
        harvest=harvest,
        money=frozenset({*money.amounts, *_sums(remits)}),
        auths=auths,
        anchors=frozenset(found.dates),
        day_counts=frozenset(_day_counts(payers, bulletins)),
        parties={
            pid: party_names(str(p.get("name", "")), pid, data.book.generic_party_words)
            for pid, p in payers.items()
        },
        cited_forms=tuple(
            re.compile(_CARC_FORMS.format(g=re.escape(g), c=re.escape(c)), re.IGNORECASE)
            for g, c in _adjustment_codes(remits)
        ),
    )


@dataclass(frozen=True)
class Answer:
    """What one answered call returned, gathered once per trajectory."""

    harvest: Harvest
    evidence: bool
    """Whether it is an evidence read (not one the data file calls visible)."""
    balances: frozenset[Decimal]
    owed: frozenset[Decimal]
    """Charges, balances and adjustment amounts it shows (`_owed`)."""
    day_counts: frozenset[int]
    """The `*_days` counts it shows (a payer's filing limit and windows)."""
    acknowledged: frozenset[date]
    authorizations: tuple[Mapping[str, Any], ...]


def answer_of(turn: Turn) -> Answer | None:
    """What a successful call returned (reads, and writes that carry no text: an auth decision)."""
    if turn.result.outcome is not ToolOutcome.OK or (
        turn.call.name in TEXT_FIELDS and turn.call.name not in DECISIONS
    ):
        return None
    body = turn.result.result
    mapping = body if isinstance(body, Mapping) else {}
    acks = [a.get("ack_date") for a in mapping.get("acknowledgments", []) if isinstance(a, Mapping)]
    auths = [mapping.get("authorization"), *(mapping.get("authorizations") or [])]
    return Answer(
        harvest=Harvest().add(body),
        evidence=turn.call.name not in grounding_data().visible_reads,
        balances=frozenset(Harvest().add(_balances(body)).amounts),
        owed=frozenset(_owed(body)),
        day_counts=frozenset(_day_counts(mapping, {})),
        acknowledged=frozenset(Harvest().add(acks).dates),
        authorizations=tuple(a for a in auths if isinstance(a, Mapping)),
    )


def case_facts(task: Task, answers: Sequence[Answer], claim_id: str) -> CaseFacts:
    """What a text about `claim_id`, written after the calls that returned `answers`, may cite."""
    common = grounding_data().book.common_tokens
    static = claim_facts(task, claim_id)
    if static is None:
        return CaseFacts(identity=frozenset({claim_id}))
    tokens, dates = set(static.harvest.tokens), set(static.harvest.dates)
    evidence, visible = Harvest(), Harvest()
    owed: set[Decimal] = set()
    counts: set[int] = set()
    money, anchors = set(static.money), set(static.anchors)
    for answer in answers:
        tokens |= answer.harvest.tokens
        dates |= answer.harvest.dates
        money |= answer.balances
        anchors |= answer.acknowledged
        found = evidence if answer.evidence else visible
        owed |= answer.owed if not answer.evidence else answer.balances
        counts |= answer.day_counts if answer.evidence else set()
        found.tokens |= answer.harvest.tokens
        found.dates |= answer.harvest.dates
        found.amounts |= answer.harvest.amounts
        found.words |= answer.harvest.words
    # What only the evidence showed: a value the 835, the claim or the document list also show is
    # no sign that the evidence was read (a claim status repeats the 277CA's date, say).
    evidence.tokens -= visible.tokens
    evidence.dates -= visible.dates
    evidence.words -= visible.words
    amounts = combined(money)
    rated = _rated(evidence.amounts - owed, static.claim)
    derived = rated | frozenset(abs(r - a) for r in rated for a in money)
    shown = derived - owed
    issued = [a for answer in answers for a in answer.authorizations]
    return CaseFacts(
        identity=static.identity,
        tokens=frozenset(tokens - common),
        evidence_tokens=frozenset(evidence.tokens - static.identity - common),
        dates=frozenset(dates),
        evidence_dates=frozenset(evidence.dates),
        anchors=frozenset(anchors),
        day_counts=static.day_counts,
        amounts=amounts | derived,
        evidence_words=frozenset(evidence.words),
        evidence_day_counts=frozenset(counts),
        evidence_amounts=shown,
        established=frozenset(_established(static.claim, [*static.auths, *issued])),
        parties=static.parties,
        cited_forms=static.cited_forms,
    )


def _owed(body: Any) -> set[Decimal]:
    """The money no evidence is needed to state: the charges, balances and adjustment amounts an
    answer shows (a paid amount stays, so that a rate the fee schedule returns is evidence even
    where the 835 allowed just that)."""
    found: set[Decimal] = set()
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for key, value in item.items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    if key in _OWED_KEYS or str(key).endswith(("balance", "charge")):
                        found.add(as_cents(value))
                else:
                    stack.append(value)
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


_OWED_KEYS = frozenset({"amount", "patient_responsibility_amount", "non_billable_amount"})


def _links(claim: Mapping[str, Any]) -> set[str]:
    keys = ("replaces_claim_id", "resubmits_claim_id", "billed_from_claim_id", "duplicate_of_claim_id")
    return {str(claim[k]) for k in keys if claim.get(k)}


def _balances(body: Any) -> dict[str, Any]:
    """The money of a visible read's answer: a claim's balances."""
    if not isinstance(body, Mapping):
        return {}
    return {k: v for k, v in body.items() if k.endswith("balance") and isinstance(v, int | float)}


def _adjustment_codes(remits: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    codes = []
    for remit in remits:
        for adj in [
            *remit.get("claim_adjustments", []),
            *(a for line in remit.get("lines", []) for a in line.get("adjustments", [])),
        ]:
            codes.append((str(adj.get("group_code")), str(adj.get("reason_code"))))
    return list(dict.fromkeys(codes))


def _sums(remits: Iterable[Mapping[str, Any]]) -> list[Decimal]:
    """Totals a text may state: per remittance, each group's and each reason code's adjustments,
    every adjustment that is not the contractual 45, and the charges."""
    out: list[Decimal] = []
    for remit in remits:
        adjustments = [
            *remit.get("claim_adjustments", []),
            *(a for line in remit.get("lines", []) for a in line.get("adjustments", [])),
        ]
        groups: dict[str, float] = {}
        for adj in adjustments:
            for key in (str(adj.get("group_code")), str(adj.get("reason_code")), "all"):
                groups[key] = groups.get(key, 0.0) + float(adj.get("amount", 0.0))
            if adj.get("reason_code") != "45":
                groups["denied"] = groups.get("denied", 0.0) + float(adj.get("amount", 0.0))
        out += [as_cents(v) for v in groups.values()]
        out.append(as_cents(sum(float(line.get("charge", 0.0)) for line in remit.get("lines", []))))
    return out


def _rated(rates: Iterable[Decimal], claim: Mapping[str, Any]) -> frozenset[Decimal]:
    """Amounts read from the evidence, and each times a line's units (a contracted rate per unit)."""
    units = {int(line.get("units", 1)) for line in claim.get("lines", [])} | {1}
    return frozenset(r * u for r in rates if r > 0 for u in units)


def _day_counts(payers: Mapping[str, Any], bulletins: Mapping[str, Any]) -> set[int]:
    """Every `*_days` count of a payer's rules or a bulletin, and an appeal window counted from the
    notice's presumed receipt (the window plus the receipt days)."""
    counts: set[int] = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            window, receipt = value.get("appeal_window_days"), value.get("notice_receipt_days")
            if isinstance(window, int) and isinstance(receipt, int):
                counts.add(window + receipt)
            for key, item in value.items():
                if str(key).endswith("_days") and isinstance(item, int) and not isinstance(item, bool):
                    counts.add(item)
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(payers)
    walk(bulletins)
    return counts


def _established(claim: Mapping[str, Any], auths: Iterable[Mapping[str, Any]]) -> set[str]:
    """The facts the world establishes for the claim: an approved authorization of its payer for
    its date of service, on file or issued during the episode."""
    days = {str(line.get("service_date")) for line in claim.get("lines", [])}
    held = any(
        a.get("status") == "approved"
        and a.get("payer_id") == claim.get("payer_id")
        and str(a.get("service_date")) in days
        for a in auths
    )
    return {"authorization"} if held else set()
