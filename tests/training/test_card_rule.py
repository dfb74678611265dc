"""The gate's verifier-card rule stops a candidate judged by a verifier whose card fails its bars or
regressed against the champion's recorded card."""

from __future__ import annotations

from schemas.gate import VerifierCardEvidence
from training.card_rule import card_checks, regressions
from training.evaluate import EvalReport, SuiteRun, Trial, pair
from training.gate import DEFAULT_RULES, GateRules, judge


def _card(verifier: str = "rcm.v2", **numbers: object) -> VerifierCardEvidence:
    fields: dict[str, object] = {
        "kappa": 1.0,
        "false_pass_rate": 0.0,
        "mutation_score": 1.0,
        "hackable_share": 0.1,
        **numbers,
    }
    return VerifierCardEvidence(verifier=verifier, card="card.json#abc", admitted=True, **fields)  # type: ignore[arg-type]


def _report(verifier: str = "rcm.v2") -> EvalReport:
    def run(policy: str, suite: str, rate: float) -> SuiteRun:
        trials = [
            Trial(task_id=f"t{i}", seed=0, family="f", passed=i < rate * 50, score=1.0, verifier=verifier)
            for i in range(50)
        ]
        return SuiteRun(suite=suite, policy=policy, trials=trials)

    suites = [
        pair(run("c", "base", 0.96), run("b", "base", 0.96)),
        pair(run("c", "promoted", 1.0), run("b", "promoted", 0.0)),
    ]
    return EvalReport(candidate="c", champion="b", seeds=[0], suites=suites)


def test_a_candidate_scored_by_a_verifier_with_a_sound_card_passes() -> None:
    verdict = judge(_report(), DEFAULT_RULES, cards=[_card()])
    assert verdict.passed, verdict.reasons
    assert [c.verifier for c in verdict.verifier_cards] == ["rcm.v2"]


def test_a_card_that_misses_its_bars_stops_an_otherwise_accepted_candidate() -> None:
    card = _card(failing=("not fit for training: kappa 0.791 is below 0.8 on 195 labels",))
    verdict = judge(_report(), DEFAULT_RULES, cards=[card])
    assert not verdict.passed
    (reason,) = verdict.reasons
    assert reason.startswith("verifier rcm.v2: misses: not fit for training: kappa 0.791")


def test_no_card_for_the_evaluations_verifier_stops_the_candidate() -> None:
    verdict = judge(_report("rcm.v3"), DEFAULT_RULES, cards=[_card()])
    assert not verdict.passed and "verifier rcm.v3: no verifier card" in verdict.reasons[0]


def test_a_card_that_regressed_against_the_champions_stops_the_candidate() -> None:
    recorded = _card(kappa=1.0, hackable_share=0.05)
    now = _card(kappa=0.95, hackable_share=0.08)
    verdict = judge(_report(), DEFAULT_RULES, cards=[now], champion_cards=[recorded])
    assert not verdict.passed
    assert (
        "kappa 1.000 -> 0.950" in verdict.reasons[0] and "hackable_share 0.050 -> 0.080" in verdict.reasons[0]
    )


def test_a_card_that_improved_or_held_is_no_regression() -> None:
    assert regressions(_card(kappa=1.0, false_pass_rate=0.0), _card(kappa=0.9, false_pass_rate=0.1)) == []
    assert regressions(_card(mutation_score=None), _card()) == ["mutation_score missing (was 1.000)"]


def test_the_rule_can_be_switched_off_and_checks_one_card_per_verifier() -> None:
    off = GateRules(rules=DEFAULT_RULES.rules, verifier_card=False)
    assert judge(_report("rcm.v3"), off, cards=[]).passed
    assert not judge(_report("rcm.v3"), DEFAULT_RULES, cards=[]).passed
    unconsulted = judge(_report("rcm.v3"), DEFAULT_RULES)
    assert unconsulted.passed and unconsulted.verifier_cards == []
    checks = card_checks(["rcm.v2", "rcm.v2", "rcm.v1"], [_card(), _card("rcm.v1")])
    assert [c.name for c in checks] == ["verifier_card.rcm.v1", "verifier_card.rcm.v2"]
