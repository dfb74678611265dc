"""The improvement cycle's gate reads the verifier cards its settings carry: a card that misses its
bars stops a candidate the suite rules would accept, and without cards the rule is skipped."""

from __future__ import annotations

from pathlib import Path

from schemas.gate import VerifierCardEvidence
from training.evaluate import EvalReport, SuiteRun, Trial, pair
from training.registry import read_evaluation, store_report
from workflows.improvement.activities import ImprovementActivities
from workflows.improvement.models import AdapterStep, CycleInput, CycleSettings, TaskSource


def _report() -> EvalReport:
    def run(policy: str, suite: str, rate: float) -> SuiteRun:
        trials = [
            Trial(task_id=f"t{i}", seed=0, family="f", passed=i < rate * 50, score=1.0, verifier="rcm.v2")
            for i in range(50)
        ]
        return SuiteRun(suite=suite, policy=policy, trials=trials)

    suites = [
        pair(run("c", "base", 0.96), run("b", "base", 0.96)),
        pair(run("c", "promoted", 1.0), run("b", "promoted", 0.0)),
    ]
    return EvalReport(candidate="c", champion="b", seeds=[0], suites=suites)


def _card(failing: tuple[str, ...] = ()) -> VerifierCardEvidence:
    return VerifierCardEvidence(
        verifier="rcm.v2",
        card="card.json#abc",
        admitted=True,
        failing=failing,
        kappa=1.0,
        false_pass_rate=0.0,
        mutation_score=1.0 if not failing else 0.5,
        hackable_share=0.1,
    )


def _gate(tmp_path: Path, cards: tuple[VerifierCardEvidence, ...] | None) -> tuple[bool, list[str]]:
    folder = tmp_path / "adapter"
    folder.mkdir()
    (folder / "adapter_config.json").write_text("{}")
    store_report(folder, _report())
    settings = CycleSettings(
        state_dir=str(tmp_path / "state"),
        tasksets_root=str(tmp_path / "sets"),
        release_db_url=f"sqlite:///{tmp_path / 'release.db'}",
        base_model=str(tmp_path / "base"),
        primary=TaskSource(specs=("x",)),
        verifier_cards=cards,
    )
    result = ImprovementActivities().gate_adapter(
        AdapterStep(cycle=CycleInput(cycle_id="c1", settings=settings), adapter_folder=str(folder))
    )
    _, verdict = read_evaluation(folder)
    assert verdict is not None and verdict.passed == result.passed
    return result.passed, [check.name for check in verdict.checks]


def test_the_cycles_gate_stops_a_candidate_whose_verifier_card_misses_its_bars(tmp_path: Path) -> None:
    passed, checks = _gate(tmp_path, (_card(failing=("mutation score 0.500 is below 0.95",)),))
    assert not passed
    assert any("card" in name for name in checks)


def test_the_cycles_gate_passes_a_candidate_with_a_sound_card(tmp_path: Path) -> None:
    passed, checks = _gate(tmp_path, (_card(),))
    assert passed
    assert any("card" in name for name in checks)


def test_without_cards_the_cycles_gate_skips_the_card_rule(tmp_path: Path) -> None:
    passed, checks = _gate(tmp_path, None)
    assert passed
    assert not any("card" in name for name in checks)
