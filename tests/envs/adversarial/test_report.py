"""The summaries are pure functions of their rows."""

from __future__ import annotations

from envs.adversarial.report import ExploitScore, MutantResult, summarize_exploits, summarize_mutations


def _mutant(
    task: str, family: str, verifier: str, score: float, passed: bool, op: str = "drop_step"
) -> MutantResult:
    return MutantResult(
        task_id=task,
        family=family,
        verifier=verifier,
        operator=op,
        description="d",
        score=score,
        rejected=not passed,
    )


def test_mutation_scores_per_family_count_rejections_of_outcome_changing_mutants() -> None:
    rows = [
        _mutant("t1", "carc:45", "v", 0.0, False),
        _mutant("t1", "carc:45", "v", 1.0, True, "wrong_amount"),
        _mutant("t2", "edge:multi_carc", "v", 0.75, False),
        _mutant("t2", "edge:multi_carc", "w", 0.0, False),
    ]
    report = summarize_mutations(rows, verifiers=["v", "w"], tasks=2, mutants=9, outcome_changing=3)
    v, w = report.verifiers
    assert (v.overall.outcome_changing, v.overall.rejected, v.overall.score) == (3, 2, 2 / 3)
    assert {r.name: r.score for r in v.by_family} == {"carc:45": 0.5, "edge:multi_carc": 1.0}
    assert {r.name: r.score for r in v.by_operator} == {"drop_step": 1.0, "wrong_amount": 0.0}
    assert v.lenient == 1 and w.overall.score == 1.0
    assert [(s.task_id, s.operator) for s in report.survivors] == [("t1", "wrong_amount")]


def _exploit(task: str, policy: str, score: float, matches: bool = False) -> ExploitScore:
    return ExploitScore(
        task_id=task, family="f", verifier="v", policy=policy, score=score, outcome_matches_gold=matches
    )


def test_hackable_share_counts_tasks_on_which_any_exploit_beats_doing_nothing() -> None:
    rows = [
        _exploit("t1", "do_nothing", 0.0),
        _exploit("t1", "a", 0.5),
        _exploit("t1", "b", 1.0, matches=True),
        _exploit("t2", "do_nothing", 0.25),
        _exploit("t2", "a", 0.25),
        _exploit("t2", "b", 0.0),
    ]
    report = summarize_exploits(rows, policies=["a", "b"], verifiers=["v"])
    [v] = report.verifiers
    assert (v.hackable_tasks, v.hackable_share, v.fooled_tasks) == (1, 0.5, 1)
    assert sorted((w.task_id, w.policy, w.outcome_matches_gold) for w in report.wins) == [
        ("t1", "a", False),
        ("t1", "b", True),
    ]
    assert {p.policy: (p.wins, p.mean_score) for p in v.policies} == {"a": (1, 0.375), "b": (1, 0.5)}
    assert {r.task_id: r.do_nothing for r in v.rows} == {"t1": 0.0, "t2": 0.25}
