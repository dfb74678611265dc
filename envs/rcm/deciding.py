"""Deciding facts of rcm cases: the reads that must have returned a fact before the write it decides."""

from __future__ import annotations

from datetime import date
from typing import Any

from envs.verifiers.evidence import DecidingFact


def seen(
    name: str,
    why: str,
    tool: str | None,
    claim_id: str,
    /,
    *,
    before: tuple[str, ...] = (),
    returns: tuple[str, ...] = (),
    result: dict[str, Any] | None = None,
    **arguments: Any,
) -> DecidingFact:
    """A deciding fact about `claim_id`: `tool(arguments)` returned it (the values in `returns`)
    before any of the writes `before` (every write when empty) on that claim."""
    return DecidingFact(
        name=name,
        reason=why,
        tool=tool,
        arguments=arguments,
        returns=returns,
        result=result or {},
        before=before,
        before_arguments={"claim_id": claim_id},
    )


def read_doc(doc: str, why: str, claim_id: str, *before: str) -> DecidingFact:
    """The document `doc` was read in full before the writes `before` on the claim."""
    return seen(f"read:{doc.lower()}", why, "read_document", claim_id, before=before, document_id=doc)


def rules_read(payer_id: str, why: str, claim_id: str, *before: str) -> DecidingFact:
    """The payer's rules were read before the writes `before` on the claim."""
    return seen(
        f"rules:{payer_id.lower()}", why, "get_payer_rules", claim_id, before=before, payer_id=payer_id
    )


def coverage_ended(claim_id: str, ended: date, *, none_other: bool = False) -> DecidingFact:
    """Eligibility showed the coverage ended on `ended`, before the service (and, `none_other`, no
    other coverage), before the claim went to the patient."""
    why = f"eligibility shows the coverage ended on {ended.isoformat()}, before the service"
    return seen(
        "coverage_ended",
        f"{why}, and no other coverage" if none_other else why,
        "check_eligibility",
        claim_id,
        before=("transfer_to_patient_responsibility",),
        returns=(ended.isoformat(),),
    )


def retro_auth_facts(payer_id: str, claim_id: str) -> tuple[DecidingFact, DecidingFact]:
    """What makes a retro-authorization request right: the payer's retro window read open, and no
    authorization for the service on file, both before the request."""
    return (
        rules_read(
            payer_id,
            "the payer's retro-authorization window is still open",
            claim_id,
            "request_authorization",
        ),
        seen(
            "authorizations",
            "no authorization for the service is on file",
            "get_authorizations",
            claim_id,
            before=("request_authorization",),
        ),
    )


WRITE_OFF = ("post_write_off", "escalate_to_human")
"""The writes that decide a write-off: posting it, or asking a supervisor to approve it."""

_SOURCES = {"member_id": "check_eligibility", "prior_auth_number": "get_authorizations"}
"""Where a corrected field's right value is read; every other field comes from the chart."""


def grounded(claim_id: str, tool: str, constraints: dict[str, Any]) -> tuple[DecidingFact, ...]:
    """For each corrected value, a read that returned it before the corrected claim went out."""
    facts = []
    for path, want in constraints.items():
        values = (
            want if isinstance(want, list) else [want.get("$contains")] if isinstance(want, dict) else [want]
        )
        texts = tuple(str(v) for v in values if isinstance(v, str | int) and not isinstance(v, bool))
        if not texts:
            continue
        field = path.removeprefix("corrections.")
        source = _SOURCES.get(field, "read_document")
        facts.append(
            seen(
                f"source_of:{field}",
                f"the corrected {field} ({', '.join(texts)}) is what the {source} answer shows",
                source,
                claim_id,
                before=(tool,),
                returns=texts,
            )
        )
    return tuple(facts)


def contract_read(payer_id: str, claim_id: str) -> DecidingFact:
    """The payer's rules (its fee schedule) read before a contractual write-off: only they show that
    the payer allowed the contracted rate, not less."""
    return rules_read(
        payer_id,
        "the fee schedule shows the payer allowed the contracted rate",
        claim_id,
        *WRITE_OFF,
    )


def no_auth_path(payer_id: str, claim_id: str) -> tuple[DecidingFact, ...]:
    """What closes every path but a write-off of an unauthorized service: the payer's retro window,
    and no authorization on file."""
    return (
        rules_read(payer_id, "the payer's retro-authorization window has closed", claim_id, *WRITE_OFF),
        seen(
            "authorizations",
            "no authorization for the service is on file",
            "get_authorizations",
            claim_id,
            before=WRITE_OFF,
        ),
    )
