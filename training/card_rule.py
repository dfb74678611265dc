"""The gate's verifier-card rule: an adapter is judged only by verifiers whose card meets its bars,
and a card no worse than the one recorded when the champion was judged.

A pass rate means something only if the verifier behind it is trustworthy (design.md §5). Each
verifier that scored the evaluation must have a card (`loopline verifiers report`), that card must
list no bar it misses, and where the champion's verdict recorded a card for the same verifier, none
of its numbers may have moved the wrong way: kappa and the mutation score may not fall, the
false-pass rate and the hackable share may not rise. Pure: the composition root reads the card.
"""

from __future__ import annotations

from collections.abc import Sequence

from schemas.gate import GateCheck, VerifierCardEvidence

TOLERANCE = 1e-9
"""Cards of the same verifier on the same seed are deterministic; any real move counts."""

HIGHER_IS_BETTER = {"kappa": True, "mutation_score": True, "false_pass_rate": False, "hackable_share": False}


def regressions(card: VerifierCardEvidence, recorded: VerifierCardEvidence) -> list[str]:
    """Each number of `card` that is worse than the champion's `recorded` one, in words."""
    found = []
    for field, higher in HIGHER_IS_BETTER.items():
        now, then = getattr(card, field), getattr(recorded, field)
        if then is None:
            continue
        if now is None:
            found.append(f"{field} missing (was {then:.3f})")
        elif (then - now if higher else now - then) > TOLERANCE:
            found.append(f"{field} {then:.3f} -> {now:.3f}")
    return found


def card_checks(
    verifiers: Sequence[str],
    cards: Sequence[VerifierCardEvidence],
    champion_cards: Sequence[VerifierCardEvidence] = (),
) -> list[GateCheck]:
    """One check per verifier that scored the evaluation (value 1 = the card holds, 0 = it does not)."""
    by_name = {c.verifier: c for c in cards}
    recorded = {c.verifier: c for c in champion_cards}
    checks = []
    for verifier in sorted(set(verifiers)):
        card = by_name.get(verifier)
        if card is None:
            reason = f"verifier {verifier}: no verifier card for it (`loopline verifiers report`)"
            problems = [reason]
        else:
            problems = [f"misses: {'; '.join(card.failing)}"] if card.failing else []
            if verifier in recorded:
                moved = regressions(card, recorded[verifier])
                problems += [f"regressed against the champion's card: {', '.join(moved)}"] if moved else []
            reason = f"verifier {verifier}: " + (
                "; ".join(problems) if problems else f"card meets its bars ({card.card})"
            )
        checks.append(
            GateCheck(
                name=f"verifier_card.{verifier}",
                passed=not problems,
                value=0.0 if problems else 1.0,
                threshold=1.0,
                reason=reason,
            )
        )
    return checks
