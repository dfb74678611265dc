"""A generated case's outcome spec: its intent's facts, what the correction keeps, what must not happen.

- The intent's own assertions, with the patient's share filled in from the remittance (the ledger's
  `patient_billable`, the rule the domain logic applies too).
- A correction to "the line" (`lines.0` in the case's rules, as the correction's first line)
  lands on the line the payer denied, the first line of the remittance with a denial adjustment.
- A corrected claim keeps every business field of the original it does not correct: a replacement
  that fixes the NPI but drops a modifier is a new error, not a fix.
- Every write the resolution does not use must not have happened (a needless appeal, a write-off of
  a recoverable claim, ...), and no patient is billed for a contractual amount.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from adapters.rcm.ledger import patient_billable
from adapters.rcm.world import World
from envs.rcm.intents import WRITES, Intent
from schemas.tasks import Assertion, OutcomeSpec

_NEVER: dict[str, tuple[str, str, dict[str, Any]]] = {
    "submit_appeal": ("no_appeal", "a needless appeal wastes weeks", {"new": True}),
    "post_write_off": ("no_write_off", "writing off a recoverable claim loses revenue", {"new": True}),
    "transfer_to_patient_responsibility": (
        "no_patient_billing",
        "billing the patient here breaks the payer contract",
        {"new": True},
    ),
    "submit_replacement_claim": (
        "no_replacement",
        "a corrected claim does not fix this denial",
        {"new": True, "frequency_code": "7"},
    ),
    "submit_new_claim": (
        "no_new_claim",
        "only a claim the payer never adjudicated (rejected, or MA130) goes out again as a new claim",
        {"new": True, "resubmits_claim_id": {"$ne": None}},
    ),
    "bill_other_payer": (
        "no_other_payer_billed",
        "no other payer is responsible",
        {"new": True, "billed_from_claim_id": {"$ne": None}},
    ),
    "request_authorization": (
        "no_authorization_request",
        "no authorization request is called for",
        {"new": True},
    ),
    "escalate_to_human": ("no_escalation", "this case needs no human", {"new": True}),
    "close_claim": (
        "not_closed",
        "the claim still needs work (an appeal, a corrected claim or another payer is pending)",
        {"closed_now": True},
    ),
}
_COLLECTION = {
    "submit_appeal": "appeals",
    "post_write_off": "write_offs",
    "transfer_to_patient_responsibility": "patient_transfers",
    "submit_replacement_claim": "claims",
    "submit_new_claim": "claims",
    "bill_other_payer": "claims",
    "request_authorization": "authorizations",
    "escalate_to_human": "escalations",
    "close_claim": "claims",
}
_KEPT_CLAIM_FIELDS = ("payer_id", "member_id", "rendering_npi", "prior_auth_number", "diagnosis_codes")
_KEPT_LINE_FIELDS = ("procedure_code", "modifiers", "units", "place_of_service", "diagnosis_pointers")


NO_PATIENT_BILLING_ON_CO = Assertion(
    name="no_patient_billing_on_co",
    reason="billing a patient for a contractual (CO) adjustment breaks the payer contract",
    collection="violations",
    where={"new": True},
    min_count=0,
    max_count=0,
)
"""What the domain forbids on every case, whatever its resolution."""


def outcome_spec(intent: Intent, world: World, claim_id: str) -> OutcomeSpec:
    """The spec a generated case's final world must meet; `claim_id` is the claim worked."""
    if intent.keeps is not None:
        intent = _on_denied_line(intent, world, intent.keeps)
    must = [_with_patient_share(a, world) for a in intent.outcome]
    if intent.keeps is not None:
        must.append(kept(intent, world))
    must.extend(never(tool) for tool in WRITES if tool not in intent.allowed)
    if "close_claim" in intent.allowed:
        must.append(
            Assertion(
                name="no_other_claim_closed",
                reason="only the worked claim may be closed: closing another abandons work still owed",
                collection="claims",
                where={"closed_now": True, "claim_id": {"$ne": claim_id}},
                min_count=0,
                max_count=0,
            )
        )
    must.append(NO_PATIENT_BILLING_ON_CO)
    return OutcomeSpec(must=tuple(must), resolutions=intent.resolutions)


def never(tool: str) -> Assertion:
    """`tool`'s effect must not appear in the world."""
    name, reason, where = _NEVER[tool]
    return Assertion(
        name=name, reason=reason, collection=_COLLECTION[tool], where=where, min_count=0, max_count=0
    )


def kept(intent: Intent, world: World) -> Assertion:
    """The corrected claim carries the original's fields, except the corrected ones."""
    assert intent.keeps is not None
    original = world.claims[intent.keeps]
    fields: dict[str, Any] = {f: _json(getattr(original, f)) for f in _KEPT_CLAIM_FIELDS}
    for index, line in enumerate(original.lines):
        for f in _KEPT_LINE_FIELDS:
            value = getattr(line, f)
            fields[f"lines.{index}.{f}"] = sorted(value) if f == "modifiers" else _json(value)
    where = {
        path: value
        for path, value in fields.items()
        if not any(_overlaps(path, corrected) for corrected in intent.corrects)
    }
    return Assertion(
        name="correction_keeps_the_rest",
        reason=f"the corrected claim keeps what was right on {intent.keeps}",
        collection="claims",
        where={"new": True, _link(intent): intent.keeps, **where},
        min_count=1,
    )


def _link(intent: Intent) -> str:
    """The field by which the corrected claim names the one it corrects."""
    return "resubmits_claim_id" if intent.resolution.startswith("new_claim") else "replaces_claim_id"


def _on_denied_line(intent: Intent, world: World, claim_id: str) -> Intent:
    remit = world.latest_remittance(claim_id)
    denied = [
        index
        for index, line in enumerate(remit.lines if remit else ())
        if any(a.group_code != "PR" and a.reason_code != "45" for a in line.adjustments)
    ]
    if not denied or denied[0] == 0:
        return intent

    def moved(path: str) -> str:
        return f"lines.{denied[0]}." + path.removeprefix("lines.0.") if path.startswith("lines.0.") else path

    outcome = tuple(
        a.model_copy(update={"where": {moved(k): v for k, v in a.where.items()}}) for a in intent.outcome
    )
    return replace(intent, outcome=outcome, corrects=tuple(moved(p) for p in intent.corrects))


def _overlaps(path: str, corrected: str) -> bool:
    return path == corrected or path.startswith(corrected + ".") or corrected.startswith(path + ".")


def _json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _with_patient_share(assertion: Assertion, world: World) -> Assertion:
    if assertion.collection != "patient_transfers" or assertion.total is not None:
        return assertion
    claim = world.claims[str(assertion.where["claim_id"])]
    return assertion.model_copy(update={"total": patient_billable(world, claim)})
