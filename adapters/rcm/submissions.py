"""Pure domain logic of the claim-submission tools: replacement claims (frequency 7) of adjudicated
claims, new claims (frequency 1) in place of rejected or unprocessable ones, and claims to another
payer (coordination of benefits). Each accepted claim gets a 277CA and a new payer control number
from the world's counters."""

from __future__ import annotations

from pydantic import BaseModel

from adapters.rcm import args, ledger
from adapters.rcm.codes import DISTINCT_PROCEDURE_MODIFIERS
from adapters.rcm.errors import DomainError
from adapters.rcm.guards import open_claim, returned_unadjudicated
from adapters.rcm.models import Acknowledgment, Claim, PriorPayerAdjudication, ServiceLine
from adapters.rcm.results import ClaimSubmissionResult
from adapters.rcm.world import Change, World

Outcome = tuple[BaseModel, World]


def _accept(change: Change, claim: Claim) -> tuple[Claim, Acknowledgment]:
    """The payer's 277CA acceptance of a newly sent claim, with its new control number."""
    pcn = change.issue("pcn")
    ack = Acknowledgment(
        action="accepted",
        ack_date=change.world.today,
        status_category_code="A2",
        payer_claim_control_number=pcn,
        message="accepted into adjudication",
    )
    accepted = claim.model_copy(
        update={"status": "accepted", "payer_claim_control_number": pcn, "acknowledgments": (ack,)}
    )
    return accepted, ack


def _corrected_lines(
    claim: Claim, fixes: list[args.LineCorrection], n_diagnoses: int
) -> tuple[ServiceLine, ...]:
    by_number = {line.line_number: line for line in claim.lines}
    updated = dict(by_number)
    for fix in fixes:
        if fix.line_number not in by_number:
            raise DomainError(
                "invalid_line",
                f"claim {claim.claim_id} has no line {fix.line_number}; lines: {sorted(by_number)}",
            )
        changes = {
            "procedure_code": fix.procedure_code,
            "modifiers": tuple(fix.modifiers) if fix.modifiers is not None else None,
            "units": fix.units,
            "diagnosis_pointers": tuple(fix.diagnosis_pointers) if fix.diagnosis_pointers else None,
            "place_of_service": fix.place_of_service,
        }
        updated[fix.line_number] = updated[fix.line_number].model_copy(
            update={k: v for k, v in changes.items() if v is not None}
        )
    for line in updated.values():
        distinct = sorted(DISTINCT_PROCEDURE_MODIFIERS.keys() & set(line.modifiers))
        if "59" in distinct and len(distinct) > 1:
            raise DomainError(
                "invalid_line",
                f"line {line.line_number} carries 59 with {', '.join(m for m in distinct if m != '59')}: "
                "an X modifier (XE, XS, XP, XU) replaces 59, it is never billed with it",
            )
        if any(not 1 <= p <= n_diagnoses for p in line.diagnosis_pointers):
            raise DomainError(
                "invalid_line",
                f"line {line.line_number} points past the claim's {n_diagnoses} diagnosis codes",
            )
    return tuple(updated[n] for n in sorted(updated))


def _payer_edits(world: World, claim: Claim, fix: args.ClaimCorrections) -> None:
    """The front-end edits a payer or clearinghouse runs on a corrected claim: a rendering NPI not
    enrolled on file, or an authorization number the payer never approved for this patient, is
    rejected before adjudication."""
    payer = world.payer(claim.payer_id)
    if fix.rendering_npi and fix.rendering_npi not in world.providers:
        raise DomainError(
            "npi_not_on_file",
            f"{payer.name} rejected the claim: rendering NPI {fix.rendering_npi} is not a provider on file "
            "(enrolled with the payer); take the NPI from the record",
        )
    auth = fix.prior_auth_number.strip() if fix.prior_auth_number else None
    if auth and not any(
        x.auth_number == auth
        and x.status == "approved"
        and x.patient_id == claim.patient_id
        and x.payer_id == claim.payer_id
        for x in world.authorizations.values()
    ):
        raise DomainError(
            "auth_not_on_file",
            f"{payer.name} rejected the claim: authorization {auth} is not an approved authorization of "
            "this patient with this payer; use the number on file (get_authorizations)",
        )


def _corrected(world: World, original: Claim, fix: args.ClaimCorrections) -> dict[str, object]:
    """The claim fields `fix` changes (refused when a line correction does not fit the claim, or the
    payer's front-end edits reject a corrected value)."""
    _payer_edits(world, original, fix)
    diagnoses = tuple(fix.diagnosis_codes) if fix.diagnosis_codes else original.diagnosis_codes
    return {
        "member_id": fix.member_id or original.member_id,
        "prior_auth_number": fix.prior_auth_number or original.prior_auth_number,
        "rendering_npi": fix.rendering_npi or original.rendering_npi,
        "diagnosis_codes": diagnoses,
        "lines": _corrected_lines(original, fix.lines or [], len(diagnoses)),
    }


def submit_replacement_claim(world: World, a: args.SubmitReplacementClaimArgs) -> Outcome:
    original = open_claim(world, a.claim_id)
    if original.status == "replaced":
        raise DomainError(
            "claim_not_replaceable",
            f"claim {original.claim_id} was already replaced by {original.replaced_by_claim_id}; work that claim",
        )
    returned = returned_unadjudicated(world, original)
    if returned is not None:
        raise DomainError(
            "claim_not_replaceable",
            f"claim {original.claim_id} {returned} and was never adjudicated: there is nothing to "
            "replace; send the correction as a new claim (submit_new_claim, frequency 1)",
        )
    if original.payer_claim_control_number is None or original.status in ("submitted", "voided"):
        raise DomainError(
            "claim_not_replaceable",
            f"claim {original.claim_id} is {original.status} and has no adjudicated original to replace",
        )
    if a.original_claim_control_number.strip() != original.payer_claim_control_number:
        raise DomainError(
            "control_number_mismatch",
            f"{a.original_claim_control_number!r} is not the payer claim control number of claim "
            f"{original.claim_id}; quote the one on its remittance",
        )
    corrected = _corrected(world, original, a.corrections)
    change = Change(world)
    draft = original.model_copy(
        update={
            **corrected,
            "claim_id": change.issue("claim"),
            "frequency_code": "7",
            "original_claim_control_number": original.payer_claim_control_number,
            "submitted_date": world.today,
            "replaces_claim_id": original.claim_id,
            "replaced_by_claim_id": None,
            "billed_from_claim_id": None,
            "resubmits_claim_id": None,
            "resubmitted_as_claim_id": None,
        }
    )
    replacement, ack = _accept(change, draft)
    change.put("claims", replacement.claim_id, replacement)
    superseded = original.model_copy(
        update={"status": "replaced", "replaced_by_claim_id": replacement.claim_id}
    )
    change.put("claims", original.claim_id, superseded)
    return _submission(replacement, ack), change.commit()


def submit_new_claim(world: World, a: args.SubmitNewClaimArgs) -> Outcome:
    """A new original claim (frequency 1) in place of one the payer never adjudicated."""
    returned = open_claim(world, a.claim_id)
    if returned.status == "resubmitted":
        raise DomainError(
            "claim_already_resubmitted",
            f"claim {returned.claim_id} was already sent again as {returned.resubmitted_as_claim_id}; "
            "work that claim",
        )
    if returned_unadjudicated(world, returned) is None:
        latest = world.latest_remittance(returned.claim_id)
        if latest is None and returned.status in ("submitted", "accepted", "pending"):
            raise DomainError(
                "claim_in_process",
                f"claim {returned.claim_id} is {returned.status} at the payer and not yet adjudicated; "
                "a new claim for the same services would be a duplicate (CARC 18)",
            )
        raise DomainError(
            "claim_was_adjudicated",
            f"claim {returned.claim_id} was adjudicated ({returned.status}); a new claim would be a "
            "duplicate: correct it with a replacement claim (submit_replacement_claim, frequency 7) "
            "quoting its payer claim control number, or appeal",
        )
    corrected = _corrected(world, returned, a.corrections)
    change = Change(world)
    draft = returned.model_copy(
        update={
            **corrected,
            "claim_id": change.issue("claim"),
            "frequency_code": "1",
            "original_claim_control_number": None,
            "submitted_date": world.today,
            "replaces_claim_id": None,
            "replaced_by_claim_id": None,
            "billed_from_claim_id": None,
            "resubmits_claim_id": returned.claim_id,
            "resubmitted_as_claim_id": None,
        }
    )
    new_claim, ack = _accept(change, draft)
    change.put("claims", new_claim.claim_id, new_claim)
    superseded = returned.model_copy(
        update={"status": "resubmitted", "resubmitted_as_claim_id": new_claim.claim_id}
    )
    change.put("claims", returned.claim_id, superseded)
    return _submission(new_claim, ack), change.commit()


def _submission(claim: Claim, ack: Acknowledgment) -> ClaimSubmissionResult:
    return ClaimSubmissionResult(
        claim_id=claim.claim_id,
        payer_id=claim.payer_id,
        frequency_code=claim.frequency_code,
        status=claim.status,
        payer_claim_control_number=claim.payer_claim_control_number,
        acknowledgment=ack,
        replaces_claim_id=claim.replaces_claim_id,
        billed_from_claim_id=claim.billed_from_claim_id,
        resubmits_claim_id=claim.resubmits_claim_id,
    )


def bill_other_payer(world: World, a: args.BillOtherPayerArgs) -> Outcome:
    claim = open_claim(world, a.claim_id)
    payer = world.payer(a.payer_id)
    if payer.payer_id == claim.payer_id:
        raise DomainError(
            "same_payer", f"claim {claim.claim_id} already went to {payer.name}; use a replacement claim"
        )
    dos = claim.first_service_date
    member = a.member_id.strip().upper()
    coverage = next(
        (
            c
            for c in world.coverages.values()
            if c.payer_id == payer.payer_id and c.member_id.upper() == member and c.active_on(dos)
        ),
        None,
    )
    if coverage is not None and coverage.patient_id != claim.patient_id:
        raise DomainError(
            "member_not_this_patient",
            f"{payer.name} rejected the claim: member {coverage.member_id} is not {claim.patient_first_name} "
            f"{claim.patient_last_name} (born {claim.patient_birth_date.isoformat()}); find this patient's "
            "own coverage with check_eligibility",
        )
    if coverage is None:
        raise DomainError(
            "no_coverage_at_payer",
            f"{payer.name} rejected the claim: no member {a.member_id} with coverage on "
            f"{dos.isoformat()}; verify with check_eligibility",
        )
    if coverage.cob_order != a.payer_sequence:
        raise DomainError(
            "cob_order_mismatch",
            f"{payer.name} rejected the claim: its coordination-of-benefits record for member "
            f"{coverage.member_id} makes it the {coverage.cob_order} payer on {dos.isoformat()}, not the "
            f"{a.payer_sequence}; bill it as {coverage.cob_order}",
        )
    prior = None
    if a.payer_sequence != "primary":
        prior = prior_adjudication(world, claim)
        if prior is None:
            raise DomainError(
                "no_prior_adjudication",
                f"{payer.name} rejected the claim: a {a.payer_sequence} claim must carry the prior payer's "
                f"adjudication (MA04), and claim {claim.claim_id} has no remittance from "
                f"{world.payer(claim.payer_id).name}; bill the primary first",
            )
    change = Change(world)
    draft = claim.model_copy(
        update={
            "claim_id": change.issue("claim"),
            "payer_id": payer.payer_id,
            "payer_sequence": a.payer_sequence,
            "prior_payer": prior,
            "member_id": coverage.member_id,
            "subscriber_first_name": coverage.subscriber_first_name,
            "subscriber_last_name": coverage.subscriber_last_name,
            "relationship": coverage.relationship,
            "frequency_code": "1",
            "original_claim_control_number": None,
            # An auth number is issued by one payer and means nothing to another.
            "prior_auth_number": None,
            "submitted_date": world.today,
            "replaces_claim_id": None,
            "replaced_by_claim_id": None,
            "billed_from_claim_id": claim.claim_id,
            "resubmits_claim_id": None,
            "resubmitted_as_claim_id": None,
        }
    )
    new_claim, ack = _accept(change, draft)
    change.put("claims", new_claim.claim_id, new_claim)
    return _submission(new_claim, ack), change.commit()


def prior_adjudication(world: World, claim: Claim) -> PriorPayerAdjudication | None:
    """The adjudication of `claim` by its payer (its latest remittance), as a claim to the next payer
    carries it (837 loop 2320); None when that payer has not adjudicated it."""
    remittance = world.latest_remittance(claim.claim_id)
    if remittance is None or remittance.payer_id != claim.payer_id:
        return None
    return PriorPayerAdjudication(
        payer_id=remittance.payer_id,
        payer_claim_control_number=remittance.payer_claim_control_number,
        adjudication_date=remittance.production_date,
        paid_amount=remittance.paid_amount,
        patient_responsibility_amount=remittance.patient_responsibility_amount,
        adjustments=tuple(adj for _, adj in ledger.all_adjustments(remittance)),
    )
