"""A draft's facts as a billing specialist reads them, for the review page. Pure.

The rebuilt world becomes tables: each remittance as an ERA reads (lines, group code and CARC with
their descriptions, amounts, remark codes), each claim with its lines, the payer's rules with the
deadlines they set, and the clinical documents with their text. The episode's events become one
plain line each: a failed call with its error, an outcome with its kind and reason codes (a payer's
re-denial says which codes), the agent's reasoning, escalation and final message. Worlds without
these collections (another domain) show none of the tables; the raw world stays on the page. The
code tables are the domain's (`bridge.api.review_domain.Codes`); a code they lack is shown as is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from bridge.api.review_domain import Codes
from schemas.tasks import Assertion, VerifierSpec


@dataclass(frozen=True)
class Table:
    """Rows of plain text under a header; the template escapes every cell."""

    head: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)


@dataclass(frozen=True)
class Remittance:
    """One ERA: what the payer said about one claim."""

    remittance_id: str
    summary: Table
    lines: Table


@dataclass(frozen=True)
class Document:
    """A clinical or administrative document, readable."""

    document_id: str
    title: str
    facts: str
    text: str


@dataclass(frozen=True)
class Moment:
    """One event of the episode, in words."""

    seq: int
    time: str
    what: str
    detail: str
    problem: bool = False


@dataclass(frozen=True)
class CaseFacts:
    """Everything on the page between the status and the decision."""

    remittances: list[Remittance]
    claims: Table
    claim_lines: Table
    rules: Table
    documents: list[Document]
    conclusion: list[str]


def money(value: Any) -> str:
    """`$1,250.00`; blank for a missing amount."""
    if value is None or value == "":
        return ""
    try:
        return f"${float(value):,.2f}"
    except (TypeError, ValueError):
        return str(value)


def adjustment(row: Mapping[str, Any], codes: Codes) -> str:
    """`CO-50 $39.00: These are non-covered services … (CO: contractual obligation …)`."""
    group, code = str(row.get("group_code", "")), str(row.get("reason_code", ""))
    meaning = codes.carc.get(code, "no description (unknown or retired code)")
    return f"{group}-{code} {money(row.get('amount'))}: {meaning} ({group}: {codes.groups.get(group, 'unknown group')})"


def remark(code: str, codes: Codes) -> str:
    """`N211: description`."""
    return f"{code}: {codes.rarc.get(code, 'no description')}"


def codes_in_words(reasons: Iterable[str], codes: Codes) -> str:
    """Reason codes such as `CO-50` or `N211` with their descriptions, `; `-joined."""
    out = []
    for code in reasons:
        group, _, carc = code.partition("-")
        if carc and carc in codes.carc:
            out.append(f"{code} ({codes.carc[carc]}; {codes.groups.get(group, group)})")
        elif code in codes.carc:
            out.append(f"{code} ({codes.carc[code]})")
        elif code in codes.rarc:
            out.append(f"{code} ({codes.rarc[code]})")
        else:
            out.append(code)
    return "; ".join(out)


def _mapping(world: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = world.get(key)
    if isinstance(value, Mapping):
        return [v for v in value.values() if isinstance(v, Mapping)]
    return []


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _remittance(era: Mapping[str, Any], codes: Codes) -> Remittance:
    status = str(era.get("claim_status_code", ""))
    summary = Table(
        (
            "claim",
            "payer",
            "status",
            "charged",
            "paid",
            "patient owes",
            "produced",
            "claim-level adjustments",
        ),
        [
            (
                str(era.get("claim_id", "")),
                str(era.get("payer_id", "")),
                f"{status}: {codes.claim_status.get(status, 'unknown status')}",
                money(era.get("total_charge")),
                money(era.get("paid_amount")),
                money(era.get("patient_responsibility_amount")),
                str(era.get("production_date", "")),
                "; ".join(adjustment(a, codes) for a in _list(era.get("claim_adjustments"))) or "none",
            )
        ],
    )
    lines = Table(("line", "service", "date", "charged", "paid", "adjustments", "remarks"))
    for line in _list(era.get("lines")):
        lines.rows.append(
            (
                str(line.get("line_number", "")),
                " ".join([str(line.get("procedure_code", "")), *map(str, _list(line.get("modifiers")))]),
                str(line.get("service_date", "")),
                money(line.get("charge")),
                money(line.get("paid")),
                "; ".join(adjustment(a, codes) for a in _list(line.get("adjustments"))) or "none",
                "; ".join(remark(str(r), codes) for r in _list(line.get("remark_codes"))) or "none",
            )
        )
    return Remittance(str(era.get("remittance_id", "")), summary, lines)


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _deadline(start: date | None, days: Any, today: date | None) -> str:
    if start is None or not isinstance(days, int):
        return "unknown"
    due = start + timedelta(days=days)
    if today is None:
        return due.isoformat()
    left = (due - today).days
    return (
        f"{due.isoformat()} ({left} days left)"
        if left >= 0
        else f"{due.isoformat()} (passed {-left} days ago)"
    )


def _rules(world: Mapping[str, Any], claims: Sequence[Mapping[str, Any]]) -> Table:
    payers = world.get("payers") if isinstance(world.get("payers"), Mapping) else {}
    eras = {str(e.get("claim_id")): e for e in _mapping(world, "remittances")}
    today = _day(world.get("today"))
    table = Table(("claim", "payer", "timely filing", "appeal window", "retro-authorization window"))
    for claim in claims:
        payer = payers.get(str(claim.get("payer_id")), {}) if isinstance(payers, Mapping) else {}
        rules = payer.get("rules", {}) if isinstance(payer, Mapping) else {}
        served = min(
            (d for d in (_day(x.get("service_date")) for x in _list(claim.get("lines"))) if d), default=None
        )
        era = eras.get(str(claim.get("claim_id")), {})
        table.rows.append(
            (
                str(claim.get("claim_id", "")),
                str(payer.get("name", claim.get("payer_id", ""))),
                f"{rules.get('timely_filing_days', '?')} days from service: "
                + _deadline(served, rules.get("timely_filing_days"), today),
                f"{rules.get('appeal_window_days', '?')} days from the remittance: "
                + _deadline(_day(era.get("production_date")), rules.get("appeal_window_days"), today),
                f"{rules.get('retro_auth_window_days', '?')} days from service: "
                + _deadline(served, rules.get("retro_auth_window_days"), today),
            )
        )
    return table


def case_facts(world: Mapping[str, Any], timeline: Sequence[Moment], codes: Codes) -> CaseFacts:
    """The draft's world and its episode, as the page shows them."""
    claims = _mapping(world, "claims")
    claim_table = Table(("claim", "patient", "payer", "status", "submitted", "diagnoses", "prior auth"))
    line_table = Table(("claim", "line", "service", "units", "charged", "place", "date"))
    for claim in claims:
        claim_id = str(claim.get("claim_id", ""))
        claim_table.rows.append(
            (
                claim_id,
                f"{claim.get('patient_first_name', '')} {claim.get('patient_last_name', '')}".strip(),
                f"{claim.get('payer_id', '')} ({claim.get('payer_sequence', '')})",
                f"{claim.get('status', '')} / {claim.get('work_status', '')}",
                str(claim.get("submitted_date", "")),
                ", ".join(map(str, _list(claim.get("diagnosis_codes")))),
                str(claim.get("prior_auth_number") or "none"),
            )
        )
        for line in _list(claim.get("lines")):
            line_table.rows.append(
                (
                    claim_id,
                    str(line.get("line_number", "")),
                    " ".join([str(line.get("procedure_code", "")), *map(str, _list(line.get("modifiers")))]),
                    str(line.get("units", "")),
                    money(line.get("charge")),
                    str(line.get("place_of_service", "")),
                    str(line.get("service_date", "")),
                )
            )
    documents = [
        Document(
            document_id=str(d.get("document_id", "")),
            title=str(d.get("title", d.get("kind", "document"))),
            facts=f"{d.get('kind', '')}, dated {d.get('document_date', '?')}, "
            + ("signed" if d.get("signed") else "not signed")
            + (
                f", for {', '.join(map(str, _list(d.get('procedure_codes'))))}"
                if _list(d.get("procedure_codes"))
                else ""
            ),
            text=str(d.get("text") or "(no text on file)"),
        )
        for d in _mapping(world, "documents")
    ]
    conclusion = [m.what + ": " + m.detail for m in timeline if m.what in _CONCLUDING]
    return CaseFacts(
        remittances=[_remittance(e, codes) for e in _mapping(world, "remittances")],
        claims=claim_table,
        claim_lines=line_table,
        rules=_rules(world, claims),
        documents=documents,
        conclusion=conclusion,
    )


_CONCLUDING = ("call failed", "agent", "escalated", "episode ended", "outcome")


def moment(seq: int, time: str, kind: str, data: Mapping[str, Any], codes: Codes) -> Moment:
    """One archived event in words: what happened and the facts that matter for judging it."""
    kind = kind.removeprefix("loopline.").rsplit(".v", 1)[0]
    if kind == "tool.called" and isinstance(data.get("call"), Mapping):
        call = data["call"]
        args = ", ".join(f"{k}={v}" for k, v in sorted((call.get("arguments") or {}).items()))
        return Moment(seq, time, "call", f"{call.get('name')}({args})")
    if kind == "tool.returned":
        return Moment(seq, time, "result", f"{data.get('name')}: answered")
    if kind == "tool.failed":
        raw = data.get("error")
        error: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        status = f" (HTTP {error.get('status_code')})" if error.get("status_code") else ""
        retry = ", retryable" if error.get("retryable") else ""
        detail = f"{data.get('name')} failed: {error.get('kind', 'error')}{status}{retry}: {error.get('message', '')}"
        return Moment(seq, time, "call failed", detail, problem=True)
    if kind == "model.responded":
        said = str(data.get("content") or "").strip()
        asked = ", ".join(str(c.get("name")) for c in _list(data.get("tool_calls")) if isinstance(c, Mapping))
        if said or data.get("invalid_reason"):
            text = said or f"unusable reply: {data.get('invalid_reason')}"
            return Moment(seq, time, "agent", text[:2000], problem=bool(data.get("invalid_reason")))
        return Moment(seq, time, "agent asks", f"for {asked}" if asked else "nothing")
    if kind == "escalated":
        parts = [str(data.get("reason", ""))]
        if data.get("queue"):
            parts.append(f"queue {data['queue']}")
        if data.get("recommendation"):
            parts.append(f"recommends: {data['recommendation']}")
        return Moment(seq, time, "escalated", "; ".join(parts))
    if kind == "episode.ended":
        final = data.get("final_message")
        return Moment(seq, time, "episode ended", f"{data.get('status')}" + (f": {final}" if final else ""))
    if kind == "outcome.observed":
        words = codes_in_words(map(str, _list(data.get("reason_codes"))), codes)
        amount = f", {money(data.get('amount'))}" if data.get("amount") is not None else ""
        detail = f"{data.get('kind')}{amount}" + (f"; payer codes {words}" if words else "; no reason codes")
        return Moment(seq, time, "outcome", detail, problem=str(data.get("kind")) in ("denied", "redenied"))
    for key in ("status", "rule", "reason", "kind"):
        if key in data:
            return Moment(seq, time, kind, f"{key}: {str(data[key])[:300]}")
    return Moment(seq, time, kind, "")


def spec_checks(spec: VerifierSpec | None) -> Table:
    """What a spec checks in the final world and the trajectory, one line each, in words."""
    table = Table(("check", "in", "where", "how many"))
    if spec is None:
        return table
    outcome = spec.outcome
    for rule in outcome.must if outcome else ():
        table.rows.append(_check_row(rule, rule.reason))
    for resolution in outcome.resolutions if outcome else ():
        for rule in resolution.assertions:
            table.rows.append(
                _check_row(rule, f"one of: {resolution.name}, {resolution.reason}: {rule.reason}")
            )
    for call in spec.forbidden_calls:
        table.rows.append((call.reason or "must not be called", "calls", call.tool, "none"))
    for call in spec.required_calls:
        table.rows.append((call.reason or "must be called", "calls", call.tool, "at least 1"))
    hand_off = {True: "required", False: "ruled out", None: "either"}[spec.must_escalate]
    table.rows.append(("a hand-off to a person", "escalations", "", hand_off))
    return table


def _check_row(rule: Assertion, what: str) -> tuple[str, str, str, str]:
    where = ", ".join(f"{k}={v}" for k, v in sorted(rule.where.items())) or "any"
    if rule.max_count == 0:
        count = "none"
    elif rule.max_count is not None and rule.max_count == rule.min_count:
        count = f"exactly {rule.min_count}"
    elif rule.max_count is not None:
        count = f"{rule.min_count} to {rule.max_count}"
    else:
        count = f"at least {rule.min_count}"
    if rule.total_of is not None and rule.total is not None:
        count += f", {rule.total_of} totalling {money(rule.total)}"
    return (what, rule.collection, where, count)
