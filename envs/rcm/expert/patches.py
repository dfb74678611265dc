"""World patches of the expert cases: small, named edits applied to a world snapshot (JSON).

A case starts from the seed world and changes what its story needs: a claim, its 835, a payer
rule, a document, an authorization, a coverage. Generic operations address the snapshot by a
dotted path (`claims.CLM-1001.lines.0.modifiers`); three builders file a whole claim (`claim`),
issue a remittance for one (`remit`), or reverse its latest payment and pay it again on one 835
(`reverse`), with the same code the seed world and the generator use, so a case never hand-computes
paid amounts. Every operation refuses a path that does not exist (except the last key of `set`),
and the loader validates the result as a `World`, so a typo fails loudly.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field

from adapters.rcm.era import build_remittance, reversal_and_correction
from adapters.rcm.filing import filed_claim
from adapters.rcm.models import Acknowledgment, Claim, ClaimStatus, Patient, Remittance, ServiceLine
from schemas.base import Contract


class PatchError(ValueError):
    """A patch that does not fit the world it is applied to."""


class SetPatch(Contract):
    """Put `value` at `path`; every key but the last must exist."""

    op: Literal["set"]
    """Operation name."""
    path: str = Field(min_length=1)
    """Dotted path into the world snapshot; list items by index."""
    value: Any
    """The JSON value to put there."""


class MergePatch(Contract):
    """Update the existing object at `path` with the keys of `value`."""

    op: Literal["merge"]
    """Operation name."""
    path: str = Field(min_length=1)
    """Dotted path of an existing object."""
    value: dict[str, Any]
    """Keys to set on it."""


class DeletePatch(Contract):
    """Remove the existing key (or list item) at `path`."""

    op: Literal["delete"]
    """Operation name."""
    path: str = Field(min_length=1)
    """Dotted path of what to remove."""


class AppendPatch(Contract):
    """Append `value` to the existing list at `path`."""

    op: Literal["append"]
    """Operation name."""
    path: str = Field(min_length=1)
    """Dotted path of an existing list."""
    value: Any
    """The item to append."""


class LineSpec(Contract):
    """One service line of a claim filed by a `claim` patch."""

    code: str = Field(min_length=5, max_length=5)
    """CPT/HCPCS code."""
    charge: float = Field(ge=0)
    """Billed charge in USD."""
    dos: date
    """Date of service."""
    modifiers: tuple[str, ...] = ()
    """Modifiers as billed."""
    pos: str = "11"
    """Place of service as billed."""
    units: int = Field(default=1, ge=1)
    """Units billed."""
    pointers: tuple[int, ...] = (1,)
    """Diagnosis pointers (1-based)."""


class ClaimPatch(Contract):
    """File a claim (837P, frequency 1) for a patient of the world, accepted by a 277CA."""

    op: Literal["claim"]
    """Operation name."""
    claim_id: str = Field(min_length=1)
    """New claim id (patient control number)."""
    patient_id: str
    """A patient of the world; the claim's PHI header comes from them."""
    payer_id: str
    """Payer billed."""
    member_id: str
    """Member id as billed (it may be wrong: that can be the case's point)."""
    diagnoses: tuple[str, ...] = Field(min_length=1)
    """ICD-10-CM codes as billed."""
    lines: tuple[LineSpec, ...] = Field(min_length=1)
    """Service lines, numbered from 1 in order."""
    submitted: date
    """Date the claim was sent."""
    status: ClaimStatus = "denied"
    """Payer-side status now."""
    accepted: date | None = None
    """Date of the 277CA acceptance (default: the day after `submitted`)."""
    acknowledgments: tuple[Acknowledgment, ...] | None = None
    """The claim's 277CA history, when it is not a single acceptance."""
    rendering_npi: str = "1497758544"
    """Rendering NPI as billed (default: Dr Ortiz, credentialed with every seed payer)."""
    prior_auth_number: str | None = None
    """Auth number as billed."""
    control_number: str | None = None
    """Payer claim control number (default: payer id + 25 + the id's last four digits + 00)."""


AdjSpec = tuple[str, str, float]


class RemitPatch(Contract):
    """Issue an 835 for a claim of the world: each line pays its charge less its adjustments."""

    op: Literal["remit"]
    """Operation name."""
    claim_id: str
    """Claim the payer answers."""
    produced: date
    """Production date (appeal windows count from it)."""
    adjustments: dict[int, tuple[AdjSpec, ...]] = Field(default_factory=dict)
    """Line number → (group, CARC, amount) adjustments."""
    remarks: dict[int, tuple[str, ...]] = Field(default_factory=dict)
    """Line number → RARCs."""
    paid: dict[int, float] | None = None
    """Line number → paid amount, when it is not charge less adjustments (a contradictory line)."""
    remittance_id: str | None = None
    """ERA id (default: ERA + the id's last four digits + the production month and day)."""
    keep_earlier: bool = False
    """Keep the claim's earlier remittances; by default they are replaced."""


class ReversePatch(Contract):
    """Issue one 835 that reverses the claim's latest remittance (CLP02 22) and pays it again as
    corrected (`adjustments`), with a negative forwarding balance (PLB FB) when it pays less."""

    op: Literal["reverse"]
    """Operation name."""
    claim_id: str
    """Claim whose latest payment is reversed."""
    produced: date
    """Production date of the 835 carrying the reversal and the correction."""
    trace: str = Field(min_length=1)
    """Check/EFT trace of that 835; the two payments are `<trace>-1` and `<trace>-2`."""
    adjustments: dict[int, tuple[AdjSpec, ...]] = Field(default_factory=dict)
    """Line number → (group, CARC, amount) adjustments of the corrected payment."""


Patch = Annotated[
    SetPatch | MergePatch | DeletePatch | AppendPatch | ClaimPatch | RemitPatch | ReversePatch,
    Field(discriminator="op"),
]
"""One world patch, told apart by `op`."""


def apply_patches(snapshot: dict[str, Any], patches: Iterable[Patch]) -> dict[str, Any]:
    """A copy of `snapshot` with every patch applied in order; `PatchError` names the failing one."""
    world = copy.deepcopy(snapshot)
    for index, patch in enumerate(patches):
        try:
            _apply(world, patch)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise PatchError(f"patch {index} ({patch.op}): {exc}") from exc
    return world


def _apply(world: dict[str, Any], patch: Patch) -> None:
    if isinstance(patch, ClaimPatch):
        _file_claim(world, patch)
    elif isinstance(patch, RemitPatch):
        _remit(world, patch)
    elif isinstance(patch, ReversePatch):
        _reverse(world, patch)
    else:
        *parents, last = patch.path.split(".")
        parent = _walk(world, parents, patch.path)
        if isinstance(patch, SetPatch):
            _put(parent, last, copy.deepcopy(patch.value), patch.path)
        else:
            target = _child(parent, last, patch.path)
            if isinstance(patch, MergePatch):
                if not isinstance(target, dict):
                    raise PatchError(f"{patch.path} is not an object")
                target.update(copy.deepcopy(patch.value))
            elif isinstance(patch, AppendPatch):
                if not isinstance(target, list):
                    raise PatchError(f"{patch.path} is not a list")
                target.append(copy.deepcopy(patch.value))
            else:
                del parent[int(last) if isinstance(parent, list) else last]


def _walk(node: Any, parts: list[str], path: str) -> Any:
    for part in parts:
        node = _child(node, part, path)
    return node


def _child(node: Any, part: str, path: str) -> Any:
    if isinstance(node, dict) and part in node:
        return node[part]
    if isinstance(node, list) and part.isdigit() and int(part) < len(node):
        return node[int(part)]
    raise PatchError(f"{path}: no {part!r} there")


def _put(parent: Any, key: str, value: Any, path: str) -> None:
    if isinstance(parent, dict):
        parent[key] = value
    elif isinstance(parent, list) and key.isdigit() and int(key) < len(parent):
        parent[int(key)] = value
    else:
        raise PatchError(f"{path}: cannot set {key!r} there")


def _file_claim(world: dict[str, Any], patch: ClaimPatch) -> None:
    if patch.claim_id in world["claims"]:
        raise PatchError(f"claim {patch.claim_id} already exists; use set or merge to change it")
    patient = Patient.model_validate(world["patients"][patch.patient_id])
    lines = tuple(
        ServiceLine(
            line_number=n,
            procedure_code=spec.code,
            modifiers=spec.modifiers,
            diagnosis_pointers=spec.pointers,
            units=spec.units,
            charge=spec.charge,
            place_of_service=spec.pos,
            service_date=spec.dos,
        )
        for n, spec in enumerate(patch.lines, 1)
    )
    claim = filed_claim(
        claim_id=patch.claim_id,
        patient=patient,
        payer_id=patch.payer_id,
        member_id=patch.member_id,
        billing_npi=world["practice"]["billing_npi"],
        rendering_npi=patch.rendering_npi,
        payer_claim_control_number=patch.control_number or f"{patch.payer_id}25{patch.claim_id[-4:]}00",
        diagnoses=patch.diagnoses,
        lines=lines,
        submitted=patch.submitted,
        status=patch.status,
        accepted=patch.accepted,
        prior_auth_number=patch.prior_auth_number,
    )
    if patch.acknowledgments is not None:
        claim = claim.model_copy(update={"acknowledgments": patch.acknowledgments})
    world["claims"][claim.claim_id] = claim.model_dump(mode="json")


def _remit(world: dict[str, Any], patch: RemitPatch) -> None:
    claim = Claim.model_validate(world["claims"][patch.claim_id])
    lines = {line.line_number for line in claim.lines}
    stray = sorted((set(patch.adjustments) | set(patch.remarks) | set(patch.paid or {})) - lines)
    if stray:
        raise PatchError(f"claim {patch.claim_id} has no line(s) {stray}")
    payer = world["payers"][claim.payer_id]
    remit = build_remittance(
        claim,
        remittance_id=patch.remittance_id or f"ERA{claim.claim_id[-4:]}{patch.produced:%m%d}",
        produced=patch.produced,
        filing_indicator=payer["claim_filing_indicator"],
        adjustments=patch.adjustments,
        remarks=patch.remarks,
        paid=patch.paid,
    )
    if not patch.keep_earlier:
        earlier = [rid for rid, r in world["remittances"].items() if r["claim_id"] == claim.claim_id]
        for rid in earlier:
            del world["remittances"][rid]
    world["remittances"][remit.remittance_id] = remit.model_dump(mode="json")


def _reverse(world: dict[str, Any], patch: ReversePatch) -> None:
    claim = Claim.model_validate(world["claims"][patch.claim_id])
    earlier = [
        Remittance.model_validate(r) for r in world["remittances"].values() if r["claim_id"] == claim.claim_id
    ]
    if not earlier:
        raise PatchError(f"claim {patch.claim_id} has no remittance to reverse")
    earlier.sort(key=lambda r: (r.production_date, r.remittance_id))
    pair = reversal_and_correction(
        claim, earlier[-1], trace=patch.trace, produced=patch.produced, adjustments=patch.adjustments
    )
    for remit in pair:
        world["remittances"][remit.remittance_id] = remit.model_dump(mode="json")
