"""The verifier card as the gate reads it: `loopline.card`'s report turned into `schemas.gate`
evidence, one entry per verifier on the card (training never imports `loopline`, so the composition
root reads the card and hands the evidence in)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from loopline.card.build import failing_bars
from loopline.card.model import VerifierCard
from schemas.gate import VerifierCardEvidence

REPO_CARD = Path(__file__).resolve().parents[2] / "bench" / "results" / "verifier_card.json"
"""The card committed with the code (`loopline verifiers report --json`, `bench/verifier_card.py`)."""


class CardError(ValueError):
    """A card file that cannot be read."""


def card_evidence(path: Path) -> list[VerifierCardEvidence]:
    """Every verifier of the card at `path`, judged by the card's bars as if it were the admitted one."""
    try:
        raw = path.read_bytes()
        card = VerifierCard.model_validate_json(raw)
    except (OSError, ValueError) as exc:
        raise CardError(f"cannot read the verifier card {path}: {exc}") from None
    where = f"{path}#{hashlib.sha256(raw).hexdigest()}"
    names = sorted(
        {r.verifier for r in card.expert}
        | {m.verifier for m in card.mutation.verifiers}
        | {e.verifier for e in card.exploits.verifiers}
        | {a.agreement.verifier for a in card.agreement}
    )
    agreement = {a.agreement.verifier: a.agreement for a in card.agreement}
    mutation = {m.verifier: m.overall.score for m in card.mutation.verifiers}
    hackable = {e.verifier: e.hackable_share for e in card.exploits.verifiers}
    return [
        VerifierCardEvidence(
            verifier=name,
            card=where,
            admitted=name == card.admitted,
            failing=tuple(failing_bars(card.model_copy(update={"admitted": name}))),
            kappa=agreement[name].kappa if name in agreement else None,
            false_pass_rate=agreement[name].false_pass_rate if name in agreement else None,
            mutation_score=mutation.get(name),
            hackable_share=hackable.get(name),
        )
        for name in names
    ]
