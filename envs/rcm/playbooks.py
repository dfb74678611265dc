"""Per-CARC playbooks of the reference specialist: the brief's resolution table as scripts.

Each playbook reads what it needs, then acts; the shared rules (approval limit, escalation) live
on the desk. `PLAYBOOKS` maps a denial's CARC to its playbook; the caller has already checked the
remittance for unknown codes and contradictions.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from adapters.rcm.codes import DISTINCT_PROCEDURE_MODIFIERS
from envs.rcm.charts import Coding, parse_coding
from envs.rcm.desk import CONTRACTUAL, Desk, Facts, Script
from envs.rcm.narrative import distinct_modifier, rendering_npi

Playbook = Callable[[Desk, Facts], Script]
CLINICAL = ("medical_record", "operative_note", "letter_of_medical_necessity")


def documents(desk: Desk, facts: Facts) -> Script:
    """The claim's documents (summaries), newest last."""
    found = yield from desk.read("get_documents", claim_id=facts.claim_id)
    return list(found["documents"]) if found else []


def chart(desk: Desk, facts: Facts) -> Script:
    """The coding summary of the claim's medical record (or operative note), if any."""
    for doc in (yield from documents(desk, facts)):
        if doc["kind"] in ("medical_record", "operative_note") and doc["claim_id"] == facts.claim_id:
            full = yield from desk.read("read_document", document_id=doc["document_id"])
            coding = parse_coding(full["document"]["text"]) if full else None
            if coding is not None:
                return coding
    return None


def narratives(desk: Desk, facts: Facts) -> Script:
    """The text of each of the claim's clinical notes (read once; the desk remembers the reads)."""
    texts = []
    for doc in (yield from documents(desk, facts)):
        if doc["kind"] in ("medical_record", "operative_note") and doc["claim_id"] == facts.claim_id:
            full = yield from desk.read("read_document", document_id=doc["document_id"])
            if full:
                texts.append(str(full["document"]["text"]))
    return texts


def read_all(desk: Desk, document_ids: list[str]) -> Script:
    """Read each document in full: what an appeal attaches or a write-off rests on is read first.
    Returns the documents that answered."""
    found = []
    for doc in document_ids:
        full = yield from desk.read("read_document", document_id=doc)
        if full:
            found.append(full["document"])
    return found


def necessity_argument(facts: Facts, documents: list[dict[str, Any]]) -> str:
    """A medical-necessity argument from what the attached documents are: each by id, kind and
    date, and the service and diagnoses they support."""
    cited = "; ".join(
        f"{d['document_id']} ({str(d['kind']).replace('_', ' ')} of {d['document_date']})" for d in documents
    )
    codes = ", ".join(sorted({line["procedure_code"] for line in facts.claim["lines"]}))
    diagnoses = ", ".join(facts.claim["diagnosis_codes"])
    return (
        f"The attached records and signed letter of medical necessity ({cited}) document {diagnoses} and "
        f"show that {codes} on {facts.dos.isoformat()} was medically necessary. Please reprocess the claim."
    )


def rules(desk: Desk, facts: Facts) -> Script:
    """The payer's rules in effect on the claim's date of service (rules change on a date)."""
    return (yield from rules_on(desk, str(facts.claim["payer_id"]), facts.dos))


def rules_on(desk: Desk, payer_id: str, day: date) -> Script:
    """The payer's rules in effect on `day`: read once per payer, the version picked from the dated
    changes the answer lists; asked for that date only when it precedes every listed change."""
    found = yield from desk.read("get_payer_rules", payer_id=payer_id)
    if not found:
        return None
    changes = [c for c in found.get("rule_changes", []) if date.fromisoformat(c["effective_date"]) <= day]
    if changes:
        return max(changes, key=lambda c: str(c["effective_date"]))["rules"]
    if not found.get("rule_changes"):
        return found["rules"]
    earlier = yield from desk.read("get_payer_rules", payer_id=payer_id, service_date=day.isoformat())
    return earlier["rules"] if earlier else None


def appeal_open(desk: Desk, facts: Facts, payer_rules: dict[str, Any]) -> bool:
    produced = date.fromisoformat(facts.remit["production_date"])
    # The window runs from receipt, presumed some days after the notice's date (Medicare: 5).
    days = int(payer_rules["appeal_window_days"]) + int(payer_rules.get("notice_receipt_days", 0))
    return desk.today <= produced + timedelta(days=days)


def eligibility_by_demographics(desk: Desk, facts: Facts, payer_id: str | None) -> Script:
    claim = facts.claim
    return (
        yield from desk.read(
            "check_eligibility",
            payer_id=payer_id,
            first_name=claim["patient_first_name"],
            last_name=claim["patient_last_name"],
            birth_date=claim["patient_birth_date"],
            service_date=facts.dos.isoformat(),
        )
    )


def write_off_denial(desk: Desk, facts: Facts, reason_code: str, why: str) -> Script:
    """Write the denied amount off; once it is posted (not handed to a supervisor), the paid
    lines' contractual adjustments are posted too, so nothing is left open on the claim."""
    done = yield from desk.write_off(facts, facts.denied_amount, reason_code, why)
    posted = [a for a in facts.adjustments if a.group == "CO" and a.carc in CONTRACTUAL]
    contractual = round(sum(a.amount for a in posted), 2)
    if contractual > 0.005 and done is not None and "escalation" not in done:
        codes = ", ".join(dict.fromkeys(f"CO-{a.carc}" for a in posted))
        yield from desk.write_off(
            facts, contractual, "contractual", f"{codes} contractual adjustment on the paid lines"
        )
    return done


def bill_coverage(desk: Desk, facts: Facts, coverage: dict[str, Any]) -> Script:
    """Bill the claim to `coverage` (an eligibility answer's coverage) in its COB order."""
    return (
        yield from desk.write(
            "bill_other_payer",
            claim_id=facts.claim_id,
            payer_id=coverage["payer_id"],
            member_id=coverage["member_id"],
            payer_sequence=coverage["cob_order"],
        )
    )


def needs_human(desk: Desk, facts: Facts, why: str, queue: str = "billing") -> Script:
    """Hand the claim to a human queue, naming its denial's codes and what was found."""
    return (yield from desk.escalate(facts.claim_id, queue, "review", f"{facts.codes()}: {why}"))


# -- corrected claims -------------------------------------------------------------------------------
def missing_information(desk: Desk, facts: Facts) -> Script:
    """CO-16: fix the field the RARC names and send the corrected claim (a new claim when MA130 says
    the claim was returned unprocessable, else a replacement)."""
    remarks = facts.remarks()
    if remarks & {"MA61", "N382"}:
        return (yield from corrected_member_id(desk, facts))
    coding: Coding | None = yield from chart(desk, facts)
    if coding is None and "N290" in remarks:  # no coder's summary: the note may name who saw the patient
        named = {npi for text in (yield from narratives(desk, facts)) if (npi := rendering_npi(text))}
        coding = Coding(named.pop(), (), {}) if len(named) == 1 else None
    if coding is None:
        return (
            yield from needs_human(
                desk, facts, "CO-16 but no coding summary on file to correct from", "coding"
            )
        )
    corrections: dict[str, Any] = {}
    if "N290" in remarks and coding.rendering_npi and coding.rendering_npi != facts.claim["rendering_npi"]:
        corrections["rendering_npi"] = coding.rendering_npi
    if "M76" in remarks and coding.diagnoses and list(coding.diagnoses) != facts.claim["diagnosis_codes"]:
        corrections["diagnosis_codes"] = list(coding.diagnoses)
    fixes = []
    for line in facts.claim["lines"]:
        coded = coding.lines.get(line["line_number"])
        if coded is None:
            continue
        fix: dict[str, Any] = {}
        if remarks & {"M51", "M20"} and coded.code != line["procedure_code"]:
            fix["procedure_code"] = coded.code
        if "M77" in remarks and coded.pos != line["place_of_service"]:
            fix["place_of_service"] = coded.pos
        if fix:
            fixes.append({"line_number": line["line_number"], **fix})
    if fixes:
        corrections["lines"] = fixes
    if not corrections:
        return (
            yield from needs_human(
                desk, facts, f"CO-16 with {sorted(remarks)}: nothing on file to correct", "coding"
            )
        )
    return (yield from desk.correct(facts, corrections, f"corrected per RARC {', '.join(sorted(remarks))}"))


def corrected_member_id(desk: Desk, facts: Facts) -> Script:
    """CO-31 (or a patient-identifier RARC): find the member id by demographics, resubmit."""
    found = yield from eligibility_by_demographics(desk, facts, facts.claim["payer_id"])
    active = [c for c in (found or {}).get("coverages", []) if c["active_on_service_date"]]
    if not active:
        return (yield from needs_human(desk, facts, "patient not found at the payer by demographics"))
    member = active[0]["member_id"]
    if member == facts.claim["member_id"]:
        return (
            yield from needs_human(desk, facts, "the payer's member id matches the claim; denial unexplained")
        )
    # The corrected value stays in the claim's field, never in the note: a member id is PHI.
    return (yield from desk.correct(facts, {"member_id": member}, "member id corrected from eligibility"))


def modifier(desk: Desk, facts: Facts) -> Script:
    """CO-4: put the modifiers the chart (or the payer's current rules) call for, resubmit."""
    coding: Coding | None = yield from chart(desk, facts)
    fixes = []
    for line in facts.claim["lines"]:
        coded = coding.lines.get(line["line_number"]) if coding else None
        if coded is not None and sorted(coded.modifiers) != sorted(line["modifiers"]):
            fixes.append({"line_number": line["line_number"], "modifiers": list(coded.modifiers)})
    telehealth = [line for line in facts.claim["lines"] if line["place_of_service"] in ("02", "10")]
    if not fixes and telehealth:
        payer_rules = yield from rules(desk, facts)
        if payer_rules and payer_rules["telehealth_requires_modifier_95"]:
            fixes = [
                {
                    "line_number": line["line_number"],
                    "modifiers": sorted({*line["modifiers"], "95"}),
                    "place_of_service": "10",
                }
                for line in telehealth
            ]
    if not fixes:
        return (
            yield from needs_human(desk, facts, "CO-4 but the chart's modifiers match the claim", "coding")
        )
    return (yield from desk.correct(facts, {"lines": fixes}, "corrected modifiers"))


def bundled(desk: Desk, facts: Facts) -> Script:
    """CO-97: distinct service documented → the chart's modifier (59, or the X modifier that says
    why: XE, XS, XP, XU) and resubmit; else write off."""
    coding: Coding | None = yield from chart(desk, facts)
    lines = {a.line for a in facts.denials if a.carc == "97"}
    fixes = []
    for number in sorted(n for n in lines if n is not None):
        coded = coding.lines.get(number) if coding else None
        if coded is not None and DISTINCT_PROCEDURE_MODIFIERS.keys() & set(coded.modifiers):
            fixes.append({"line_number": number, "modifiers": list(coded.modifiers)})
    if coding is None:  # no coder's summary: the narrative may document the distinct service
        found = {d for text in (yield from narratives(desk, facts)) if (d := distinct_modifier(text))}
        if len(found) == 1:
            distinct = found.pop()
            fixes = [
                {"line_number": line["line_number"], "modifiers": [distinct.modifier, *line["modifiers"]]}
                for line in facts.claim["lines"]
                if line["line_number"] in lines
                and not DISTINCT_PROCEDURE_MODIFIERS.keys() & set(line["modifiers"])
            ]
            if fixes:
                why = f"{distinct.modifier}: the note documents {distinct.why}"
                return (yield from desk.correct(facts, {"lines": fixes}, why))
    if fixes:
        return (yield from desk.correct(facts, {"lines": fixes}, "distinct procedural service documented"))
    return (
        yield from write_off_denial(desk, facts, "bundled", "bundled service, no distinct site documented")
    )


# -- authorizations ---------------------------------------------------------------------------------
def authorization(desk: Desk, facts: Facts) -> Script:
    """CO-15 / CO-197: auth on file → add it; retro window open → request; else appeal or write off."""
    codes = sorted({line["procedure_code"] for line in facts.claim["lines"]})
    found = yield from desk.read("get_authorizations", claim_id=facts.claim_id)
    for auth in (found or {}).get("authorizations", []):
        if (
            auth["status"] == "approved"
            and auth["payer_id"] == facts.claim["payer_id"]
            and auth["service_date"] == facts.dos.isoformat()
            and set(codes) <= set(auth["procedure_codes"])
        ):
            return (
                yield from desk.correct(
                    facts,
                    {"prior_auth_number": auth["auth_number"]},
                    f"authorization {auth['auth_number']} on file",
                )
            )
    payer_rules = yield from rules(desk, facts)
    docs = yield from documents(desk, facts)
    late = (desk.today - facts.dos).days
    if payer_rules and 0 < late <= int(payer_rules["retro_auth_window_days"]):
        clinical = [d["document_id"] for d in docs if d["kind"] in CLINICAL]
        asked = yield from desk.write(
            "request_authorization",
            patient_id=facts.claim["patient_id"],
            payer_id=facts.claim["payer_id"],
            procedure_codes=codes,
            diagnosis_codes=list(facts.claim["diagnosis_codes"]),
            service_date=facts.dos.isoformat(),
            claim_id=facts.claim_id,
            attachment_document_ids=clinical,
            note=f"{facts.codes()}: retro-authorization for the service of {facts.dos.isoformat()}, {late} days ago",
        )
        decision = (asked or {}).get("authorization", {})
        if decision.get("status") == "approved":
            return (
                yield from desk.correct(
                    facts,
                    {"prior_auth_number": decision["auth_number"]},
                    f"retro-authorization {decision['auth_number']} approved",
                )
            )
        return None  # pended: the decision comes later; nothing more to do today
    return (yield from necessity_or_write_off(desk, facts, docs, payer_rules, "no_authorization"))


def necessity_or_write_off(
    desk: Desk, facts: Facts, docs: list[dict[str, Any]], payer_rules: dict[str, Any] | None, reason_code: str
) -> Script:
    """Appeal on medical necessity when a signed LMN and records support it and the window is open."""
    ours = [d for d in docs if d["claim_id"] == facts.claim_id]
    lmn = [d["document_id"] for d in ours if d["kind"] == "letter_of_medical_necessity" and d["signed"]]
    records = [d["document_id"] for d in ours if d["kind"] in ("medical_record", "operative_note")]
    if lmn and records and payer_rules and appeal_open(desk, facts, payer_rules):
        read = yield from read_all(desk, records + lmn)
        argument = necessity_argument(facts, read)
        return (yield from desk.appeal(facts, "medical_necessity", argument, records + lmn))
    return (yield from write_off_denial(desk, facts, reason_code, "not recoverable on appeal"))


def necessity(desk: Desk, facts: Facts) -> Script:
    """CO-50: appeal with support; else a signed ABN on a GA line → patient; else write off."""
    docs = yield from documents(desk, facts)
    payer_rules = yield from rules(desk, facts)
    ours = [d for d in docs if d["claim_id"] in (facts.claim_id, None)]
    supported = any(
        d["kind"] == "letter_of_medical_necessity" and d["signed"] and d["claim_id"] == facts.claim_id
        for d in docs
    )
    if supported and payer_rules and appeal_open(desk, facts, payer_rules):
        return (yield from necessity_or_write_off(desk, facts, docs, payer_rules, "not_medically_necessary"))
    if any("GA" in a.modifiers for a in facts.denials):
        for doc in (d for d in ours if d["kind"] == "abn_waiver"):
            full = yield from desk.read("read_document", document_id=doc["document_id"])
            if full and waives(full["document"], facts):
                return (yield from desk.transfer(facts, facts.denied_amount, "non_covered_with_waiver"))
    clinical = ("medical_record", "operative_note", "letter_of_medical_necessity")
    yield from read_all(
        desk, [d["document_id"] for d in docs if d["claim_id"] == facts.claim_id and d["kind"] in clinical]
    )
    return (yield from write_off_denial(desk, facts, "not_medically_necessary", "no support for necessity"))


def waives(abn: dict[str, Any], facts: Facts) -> bool:
    """Whether an ABN shifts the GA lines' liability to the patient: signed, given on or before the
    date of service, naming each denied GA service and why Medicare may not pay for it."""
    given = date.fromisoformat(abn["document_date"])
    services = [line for line in facts.claim["lines"] if "GA" in line["modifiers"]]
    return (
        bool(abn["signed"])
        and bool(abn.get("noncoverage_reason", "").strip())
        and all(
            line["procedure_code"] in abn.get("procedure_codes", [])
            and given <= date.fromisoformat(line["service_date"])
            for line in services
        )
    )


# -- filing, duplicates, payers ---------------------------------------------------------------------
def timely_filing(desk: Desk, facts: Facts) -> Script:
    """CO-29: a 277CA that accepted the claim within the payer's filing limit is the proof of timely
    filing: appeal citing it. No acceptance within the limit (a rejection does not count): write off,
    never the patient."""
    status = yield from desk.read("get_claim_status", claim_id=facts.claim_id)
    payer_rules = yield from rules(desk, facts)
    limit = int(payer_rules["timely_filing_days"]) if payer_rules else 0
    accepted = [
        ack
        for ack in (status or {}).get("acknowledgments", [])
        if ack["action"] == "accepted" and (date.fromisoformat(ack["ack_date"]) - facts.dos).days <= limit
    ]
    if accepted and payer_rules and appeal_open(desk, facts, payer_rules):
        ack = accepted[0]
        days = (date.fromisoformat(ack["ack_date"]) - facts.dos).days
        pcn = ack.get("payer_claim_control_number") or facts.remit["payer_claim_control_number"]
        reason = (
            f"The CO-29 denial of claim {facts.claim_id} is in error. The payer's 277CA of {ack['ack_date']} "
            f"(status {ack['status_category_code']}, payer claim control number {pcn}) accepted the claim "
            f"{days} days after the date of service {facts.dos.isoformat()}, within the {limit}-day timely "
            "filing limit."
        )
        return (
            yield from desk.write(
                "submit_appeal",
                claim_id=facts.claim_id,
                basis="timely_filing",
                reason=reason,
                attachment_document_ids=[],
            )
        )
    return (
        yield from write_off_denial(
            desk, facts, "timely_filing", "no 277CA acceptance within the payer's filing limit"
        )
    )


def other_payer(desk: Desk, facts: Facts) -> Script:
    """CO-22 / CO-109: find the payer that covers the date of service, bill it."""
    claim = facts.claim
    if any(a.carc == "22" for a in facts.denials):
        found = yield from desk.read(
            "check_eligibility",
            payer_id=claim["payer_id"],
            member_id=claim["member_id"],
            service_date=facts.dos.isoformat(),
        )
        candidates = (found or {}).get("other_coverage", [])
    else:
        found = yield from eligibility_by_demographics(desk, facts, None)
        candidates = [c for c in (found or {}).get("coverages", []) if c["payer_id"] != claim["payer_id"]]
    active = [c for c in candidates if c["active_on_service_date"]]
    if not active:
        return (yield from needs_human(desk, facts, "no other coverage found for the date of service"))
    return (yield from bill_coverage(desk, facts, active[0]))


def terminated(desk: Desk, facts: Facts) -> Script:
    """CARC 27: other coverage on the date → bill it; none → the patient owes it."""
    found = yield from eligibility_by_demographics(desk, facts, None)
    coverages = (found or {}).get("coverages", [])
    if any(c["payer_id"] == facts.claim["payer_id"] and c["active_on_service_date"] for c in coverages):
        return (
            yield from needs_human(desk, facts, "denied as terminated, but eligibility shows coverage active")
        )
    active = [c for c in coverages if c["active_on_service_date"]]
    if active:
        return (yield from bill_coverage(desk, facts, active[0]))
    return (yield from desk.transfer(facts, facts.denied_amount, "coverage_terminated"))


def credentialing(desk: Desk, facts: Facts) -> Script:
    """B7: the rendering provider was not certified on the date: credentialing decides."""
    why = f"B7: rendering NPI {facts.claim['rendering_npi']} not certified with the payer on the date of service"
    return (yield from needs_human(desk, facts, why, "credentialing"))


PLAYBOOKS: dict[str, Playbook] = {
    "16": missing_information,
    "4": modifier,
    "15": authorization,
    "197": authorization,
    "29": timely_filing,
    "22": other_payer,
    "109": other_payer,
    "27": terminated,
    "31": corrected_member_id,
    "50": necessity,
    "97": bundled,
    "B7": credentialing,
}
