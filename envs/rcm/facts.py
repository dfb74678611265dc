"""The outcome facts of an rcm world: flat records an outcome spec asserts over.

Each collection lists one kind of business fact (claims sent, appeals, money written off or moved
to the patient, hand-offs, compliance breaches, balances); every record says whether the episode
created it (`new`); a claim also says whether the episode closed it (`closed_now`) and whether its
prior-auth number is one the payer approved (`auth_on_file`), and a claim to a secondary payer which
payer's adjudication it carries (`prior_payer_id`, `prior_payer_paid`). Free text (letters, notes, reasons) stays out: content checks judge it. Read
straight from the world's JSON, because scoring runs once per episode at training scale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Record = dict[str, Any]

_CLAIM_FIELDS = (
    "claim_id",
    "patient_id",
    "payer_id",
    "payer_sequence",
    "status",
    "frequency_code",
    "member_id",
    "rendering_npi",
    "prior_auth_number",
    "original_claim_control_number",
    "payer_claim_control_number",
    "replaces_claim_id",
    "replaced_by_claim_id",
    "billed_from_claim_id",
    "resubmits_claim_id",
    "resubmitted_as_claim_id",
    "work_status",
    "closed_reason",
)
_LINE_FIELDS = ("line_number", "procedure_code", "units", "place_of_service", "charge")


def outcome_facts(initial: Mapping[str, Any], final: Mapping[str, Any]) -> dict[str, list[Record]]:
    """Every collection of facts about `final`, with `new` set against `initial`."""
    documents = final.get("documents", {})
    claims = final.get("claims", {})
    before = initial.get("claims", {})
    approved = {
        (a.get("auth_number"), a.get("patient_id"), a.get("payer_id"))
        for a in final.get("authorizations", {}).values()
        if a.get("status") == "approved"
    }
    return {
        "claims": [
            {
                **_claim(c),
                "new": cid not in before,
                "closed_now": c.get("work_status") == "closed"
                and before.get(cid, {}).get("work_status") != "closed",
                "auth_on_file": c.get("prior_auth_number") is None
                or (c.get("prior_auth_number"), c.get("patient_id"), c.get("payer_id")) in approved,
            }
            for cid, c in claims.items()
        ],
        "appeals": [
            {
                **_pick(a, "appeal_id", "claim_id", "payer_id", "basis"),
                "attachment_document_ids": list(a.get("attachment_document_ids", [])),
                "attachment_kinds": sorted(
                    documents.get(d, {}).get("kind", "unknown") for d in a.get("attachment_document_ids", [])
                ),
                "new": aid not in initial.get("appeals", {}),
            }
            for aid, a in final.get("appeals", {}).items()
        ],
        "authorizations": [
            {
                **_pick(
                    a, "auth_id", "claim_id", "payer_id", "retro", "status", "auth_number", "service_date"
                ),
                "procedure_codes": sorted(a.get("procedure_codes", [])),
                "diagnosis_codes": sorted(a.get("diagnosis_codes", [])),
                "new": aid not in initial.get("authorizations", {}),
            }
            for aid, a in final.get("authorizations", {}).items()
        ],
        "write_offs": _records(
            final, initial, "write_offs", ("write_off_id", "claim_id", "amount", "reason_code")
        ),
        "patient_transfers": _records(
            final,
            initial,
            "patient_transfers",
            ("transfer_id", "claim_id", "amount", "reason", "non_billable_amount"),
        ),
        "escalations": _records(
            final,
            initial,
            "escalations",
            ("escalation_id", "claim_id", "queue", "recommended_action", "amount"),
        ),
        "violations": [
            {**_pick(v, "kind", "claim_id", "amount"), "new": i >= len(initial.get("violations", []))}
            for i, v in enumerate(final.get("violations", []))
        ],
        "balances": [_balance(final, cid, c) for cid, c in claims.items()],
    }


def _pick(doc: Mapping[str, Any], *keys: str) -> Record:
    return {k: doc.get(k) for k in keys}


def _records(
    final: Mapping[str, Any], initial: Mapping[str, Any], collection: str, keys: tuple[str, ...]
) -> list[Record]:
    before = initial.get(collection, {})
    return [{**_pick(row, *keys), "new": rid not in before} for rid, row in final.get(collection, {}).items()]


def _claim(claim: Mapping[str, Any]) -> Record:
    record = _pick(claim, *_CLAIM_FIELDS)
    prior = claim.get("prior_payer") or {}
    record["prior_payer_id"] = prior.get("payer_id")
    record["prior_payer_paid"] = prior.get("paid_amount")
    record["diagnosis_codes"] = list(claim.get("diagnosis_codes", []))
    record["lines"] = [
        {
            **_pick(line, *_LINE_FIELDS),
            "modifiers": sorted(line.get("modifiers", [])),
            "diagnosis_pointers": list(line.get("diagnosis_pointers", [])),
        }
        for line in claim.get("lines", [])
    ]
    return record


def _sum(rows: Iterable[Mapping[str, Any]], claim_id: str, field: str) -> float:
    return sum(float(r.get(field, 0.0)) for r in rows if r.get("claim_id") == claim_id)


def _balance(world: Mapping[str, Any], claim_id: str, claim: Mapping[str, Any]) -> Record:
    charge = round(sum(float(line.get("charge", 0.0)) for line in claim.get("lines", [])), 2)
    paid = round(_sum(world.get("remittances", {}).values(), claim_id, "paid_amount"), 2)
    written_off = round(_sum(world.get("write_offs", {}).values(), claim_id, "amount"), 2)
    transferred = round(_sum(world.get("patient_transfers", {}).values(), claim_id, "amount"), 2)
    return {
        "claim_id": claim_id,
        "charge": charge,
        "paid": paid,
        "written_off": written_off,
        "transferred": transferred,
        "insurance_balance": round(charge - paid - written_off - transferred, 2),
    }
