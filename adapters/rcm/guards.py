"""Checks shared by the write tools (refusals raise `DomainError` before anything is written)."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.rcm import ledger
from adapters.rcm.errors import DomainError
from adapters.rcm.models import Claim
from adapters.rcm.world import World


def open_claim(world: World, claim_id: str) -> Claim:
    claim = world.claim(claim_id)
    if claim.work_status == "closed":
        raise DomainError(
            "claim_closed", f"claim {claim_id} is closed ({claim.closed_reason}); no further work"
        )
    return claim


UNPROCESSABLE = "MA130"
"""RARC of a claim returned as unprocessable: never adjudicated, no appeal rights, send a new claim."""


def returned_unadjudicated(world: World, claim: Claim) -> str | None:
    """Why the payer never adjudicated `claim` (a 277CA rejection, or a return as unprocessable with
    MA130 on its latest remittance), or None when it did or still may."""
    if claim.status == "rejected" or (
        claim.acknowledgments and claim.acknowledgments[-1].action == "rejected"
    ):
        ack = claim.acknowledgments[-1] if claim.acknowledgments else None
        when = f" on {ack.ack_date.isoformat()}" if ack else ""
        return f"was rejected by the payer's 277CA{when}"
    latest = world.latest_remittance(claim.claim_id)
    if latest is not None and any(UNPROCESSABLE in line.remark_codes for line in latest.lines):
        return f"was returned as unprocessable (MA130) on {latest.production_date.isoformat()}"
    return None


def check_attachments(world: World, patient_id: str, ids: Sequence[str]) -> tuple[str, ...]:
    for document_id in ids:
        if world.document(document_id).patient_id != patient_id:
            raise DomainError(
                "invalid_attachment", f"document {document_id} is not about this claim's patient"
            )
    return tuple(dict.fromkeys(ids))


def movable_amount(world: World, claim: Claim, requested: float) -> tuple[float, float]:
    """(`requested` in cents, the claim's insurance balance); refused when it exceeds the balance."""
    amount = ledger.money(requested)
    balance = ledger.insurance_balance(world, claim)
    if amount > balance + ledger.EPSILON:
        raise DomainError(
            "amount_exceeds_balance",
            f"${amount:.2f} exceeds claim {claim.claim_id}'s balance of ${balance:.2f}",
        )
    return amount, balance
