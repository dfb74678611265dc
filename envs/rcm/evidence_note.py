"""What the evidence reads returned about a claim, as a sentence a note or letter carries.

A write that decides a claim states what it rests on (`envs.rcm.grounding`: the values only the
evidence reads showed). The reference desk ends each text it writes with this sentence, built from
the answers it read: the claim's status at the payer, the original of a duplicate, the
authorizations, the eligibility answer, the payer's rules in effect (its windows and the contracted
rates of the claim's procedures). No member id, name or other PHI, and no payer's name (an appeal
names only its own payer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from envs.rcm.grounding_data import grounding_data

Read = tuple[str, Mapping[str, Any], Any]
"""(tool, arguments, answer) of one successful read."""


def evidence_note(claim_id: str, procedures: Sequence[str], reads: Iterable[Read]) -> str:
    """`Evidence read: ...` for the claim, or empty when no evidence read answered."""
    parts: list[str] = []
    for name, arguments, answer in reads:
        if not isinstance(answer, Mapping):
            continue
        about = arguments.get("claim_id")
        if about is not None and about != claim_id:
            continue
        part = _PARTS[name](answer, procedures) if name in _PARTS else None
        if part and part not in parts:
            parts.append(part)
    return f"Evidence read: {'; '.join(parts)}." if parts else ""


def _status(answer: Mapping[str, Any], procedures: Sequence[str]) -> str | None:
    code, day = answer.get("status_category_code"), answer.get("status_date")
    return f"payer status {code} as of {day}" if code and day else None


def _original(answer: Mapping[str, Any], procedures: Sequence[str]) -> str:
    if not answer.get("found"):
        return "no original claim on file"
    return f"original {answer.get('original_claim_id')} {answer.get('original_status')}"


def _authorizations(answer: Mapping[str, Any], procedures: Sequence[str]) -> str:
    found = [a for a in answer.get("authorizations") or [] if isinstance(a, Mapping)]
    if not found:
        return "no authorization for the claim"
    return ", ".join(
        f"authorization {a.get('auth_number')}: status {a.get('status')}, service date {a.get('service_date')}"
        for a in found[:3]
    )


def _eligibility(answer: Mapping[str, Any], procedures: Sequence[str]) -> str:
    if not answer.get("found"):
        return "eligibility: no member found"
    spans = [
        f"coverage {c.get('coverage_start')} to {c.get('coverage_end') or 'open'}"
        f" ({'active' if c.get('active_on_service_date') else 'not active'} on the date of service)"
        for c in answer.get("coverages") or []
        if isinstance(c, Mapping)
    ]
    others = len(answer.get("other_coverage") or [])
    return f"eligibility: {', '.join(spans[:3]) or 'no coverage'}; other coverage: {others or 'none'}"


def _rules(answer: Mapping[str, Any], procedures: Sequence[str]) -> str:
    rules = answer.get("rules") or {}
    days = [
        f"{label} {rules[key]} days"
        for key, label in (
            ("timely_filing_days", "timely filing"),
            ("appeal_window_days", "appeal window"),
            ("retro_auth_window_days", "retro-authorization window"),
            ("prompt_pay_days", "prompt pay"),
        )
        if isinstance(rules.get(key), int)
    ]
    fees = rules.get("fee_schedule") or {}
    rates = [f"contracted rate {p} ${float(fees[p]):,.2f}" for p in procedures if p in fees]
    changes = [
        f"rule change effective {c.get('effective_date')}"
        for c in answer.get("rule_changes") or []
        if isinstance(c, Mapping) and c.get("effective_date")
    ]
    return f"payer rules in effect {answer.get('in_effect_on')}: " + ", ".join([*days, *rates, *changes])


def _document(answer: Mapping[str, Any], procedures: Sequence[str]) -> str | None:
    """What a document read showed beyond the list: a waiver's stated reason, or the finding a
    clinical note ends its narrative with (never the patient's name)."""
    doc = answer.get("document") or {}
    if not isinstance(doc, Mapping) or not doc.get("document_id"):
        return None
    said = str(doc.get("noncoverage_reason") or "")
    if not said:
        narrative = str(doc.get("text") or "").split("\n\n")[0]
        sentences = [s.strip() for s in narrative.split(". ") if s.strip()][1:]
        # Never repeat text written to whoever reads it next (an instruction planted in a record).
        data = grounding_data()
        skipped = (*data.book.to_grader, *data.not_findings)  # an attestation names a person
        clean = [s for s in sentences if not any(p.search(s) for p in skipped)]
        said = clean[-1].rstrip(".") if clean else ""
    return f"{doc['document_id']} states: {said[:160]}" if said else None


_PARTS = {
    "read_document": _document,
    "get_claim_status": _status,
    "find_original_claim": _original,
    "get_authorizations": _authorizations,
    "check_eligibility": _eligibility,
    "get_payer_rules": _rules,
}
