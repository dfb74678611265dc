"""The gate: configurable rules over a paired evaluation decide whether an adapter may ship.

Rules are per suite, in points of pass@1: a least gain (the promoted suite must improve by at
least X points) and a largest loss (the base suite may not drop by more than Y points). By default
a gain must hold at its interval's lower bound and a loss at its interval's bound too (the loss the
evaluation cannot rule out), and no family of the base suite may drop more than 10 points; each
can be switched. With `verifier_card` on (the default), every verifier that scored the evaluation
must have a verifier card that meets its bars and has not regressed against the card recorded with
the champion's verdict (`training.card_rule`). The verdict lists every check with the numbers it
read, so the reason a candidate was stopped is plain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from schemas.gate import GateCheck, VerifierCardEvidence
from training.card_rule import card_checks
from training.evaluate import EvalReport, FamilyRow


class GateRule(BaseModel):
    """One suite's requirement."""

    suite: str
    """Suite name, as in the evaluation report."""
    min_gain: float | None = None
    """Least improvement over the champion, in points of pass@1 (40 = forty points)."""
    max_loss: float | None = None
    """Largest drop allowed, in points of pass@1."""
    gain_at: Literal["point", "ci_low"] = "ci_low"
    """Judge the gain at the point estimate or at the interval's lower bound."""
    loss_at: Literal["point", "ci_low"] = "ci_low"
    """Judge the loss at the interval's lower bound (the default: a drop the evaluation cannot
    rule out counts) or at the point estimate (laxer)."""
    max_family_loss: float | None = None
    """Largest drop allowed in any one family of the suite, in points of pass@1 at the point
    estimate (families are small, so this is a coarse guard against a loss the total hides)."""


class GateRules(BaseModel):
    """Every rule a candidate must meet."""

    rules: list[GateRule] = Field(default_factory=list)
    verifier_card: bool = True
    """Every verifier that scored the evaluation needs a card that meets its bars and has not
    regressed against the champion's recorded card."""


class GateVerdict(BaseModel):
    """Ship or not, and why."""

    passed: bool
    checks: list[GateCheck]
    reasons: list[str]
    """The reason of every failed check (empty when it passed)."""
    verifier_cards: list[VerifierCardEvidence] = Field(default_factory=list)
    """The cards the verifier-card rule read."""


DEFAULT_RULES = GateRules(
    rules=[
        GateRule(suite="promoted", min_gain=40.0),
        GateRule(suite="base", max_loss=2.0, max_family_loss=10.0),
    ]
)
"""+40 points on the promoted suite and at most -2 on the base suite, both at the bound of the 95%
interval, and no base family down by more than 10 points (at its point estimate)."""


def judge(
    report: EvalReport,
    rules: GateRules,
    *,
    cards: Sequence[VerifierCardEvidence] | None = None,
    champion_cards: Sequence[VerifierCardEvidence] = (),
) -> GateVerdict:
    """Apply every rule; a rule about a suite the report lacks fails, saying so. `cards` are the
    verifier cards the gate was handed (a verifier without one fails the card rule); None means no
    card source was consulted, and the card rule is then not applied (the verdict then records no
    card evidence). `champion_cards` are those recorded with the champion's verdict."""
    checks = []
    for rule in rules.rules:
        try:
            suite = report.suite(rule.suite)
        except KeyError as exc:
            checks.append(
                GateCheck(name=f"{rule.suite}.present", passed=False, value=0, threshold=0, reason=str(exc))
            )
            continue
        if rule.min_gain is not None:
            gain = 100 * (suite.ci_low if rule.gain_at == "ci_low" else suite.delta)
            ok = gain >= rule.min_gain
            where = "lower bound of the 95% interval" if rule.gain_at == "ci_low" else "point estimate"
            checks.append(
                GateCheck(
                    name=f"{rule.suite}.min_gain",
                    passed=ok,
                    value=gain,
                    threshold=rule.min_gain,
                    reason=(
                        f"{rule.suite}: gain {gain:+.1f} points ({where}) "
                        f"{'meets' if ok else 'is below'} the required +{rule.min_gain:.1f} "
                        f"({suite.champion:.1%} -> {suite.candidate:.1%} over {suite.tasks} tasks)"
                    ),
                )
            )
        if rule.max_loss is not None:
            loss = -100 * (suite.ci_low if rule.loss_at == "ci_low" else suite.delta)
            ok = loss <= rule.max_loss
            checks.append(
                GateCheck(
                    name=f"{rule.suite}.max_loss",
                    passed=ok,
                    value=loss,
                    threshold=rule.max_loss,
                    reason=(
                        f"{rule.suite}: drop {loss:+.1f} points "
                        f"{'within' if ok else 'exceeds'} the allowed {rule.max_loss:.1f} "
                        f"({suite.champion:.1%} -> {suite.candidate:.1%}; {suite.pass_to_fail} pass->fail, "
                        f"{suite.fail_to_pass} fail->pass over {suite.tasks} tasks)"
                    ),
                )
            )
        if rule.max_family_loss is not None:
            checks.append(_family_check(rule.suite, suite.families, rule.max_family_loss))
    used = report.verifiers()
    applied = rules.verifier_card and cards is not None
    if applied and cards is not None:
        checks += card_checks(used, cards, champion_cards)
    return GateVerdict(
        verifier_cards=[c for c in cards or () if c.verifier in used] if applied else [],
        passed=all(c.passed for c in checks) and bool(checks),
        checks=checks,
        reasons=[c.reason for c in checks if not c.passed] or ([] if checks else ["no rules to apply"]),
    )


def _family_check(suite: str, families: Sequence[FamilyRow], allowed: float) -> GateCheck:
    """The worst family's drop against `allowed`, naming every family past it."""
    drops = sorted(((100 * (f.champion - f.candidate), f) for f in families), key=lambda d: -d[0])
    worst = drops[0][0] if drops else 0.0
    over = [
        f"{f.family} {d:+.1f} ({f.champion:.1%} -> {f.candidate:.1%}, {f.tasks} tasks)"
        for d, f in drops
        if d > allowed
    ]
    return GateCheck(
        name=f"{suite}.max_family_loss",
        passed=not over,
        value=worst,
        threshold=allowed,
        reason=(
            f"{suite}: families dropping more than {allowed:.1f} points: {'; '.join(over)}"
            if over
            else f"{suite}: no family drops more than {allowed:.1f} points (worst {worst:+.1f})"
        ),
    )
