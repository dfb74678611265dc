"""The gate applies its rules to a paired evaluation and says why it stops a candidate."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from schemas.chain import verify_chain
from schemas.codec import EventDecodeError, from_structured
from training.evaluate import EvalReport, PairedSuite, SuiteRun, Trial, bootstrap_interval, pair
from training.gate import DEFAULT_RULES, GateRule, GateRules, judge
from training.registry import EVALUATED, read_evaluation, read_events, store_report, store_verdict
from training.release.manager import ReleaseManager
from training.release.store import SqlReleaseStore


def _registry(root: Path) -> ReleaseManager:
    store = SqlReleaseStore(f"sqlite:///{root / 'release.db'}")
    store.create_schema()
    return ReleaseManager(store)


def _run(policy: str, passed: list[bool], suite: str = "base") -> SuiteRun:
    trials = [
        Trial(task_id=f"t{i}", seed=0, family=f"f{i % 2}", passed=p, score=float(p))
        for i, p in enumerate(passed)
    ]
    return SuiteRun(suite=suite, policy=policy, trials=trials)


def _suite(name: str, champion: float, candidate: float, n: int = 100) -> PairedSuite:
    a = [i < round(champion * n) for i in range(n)]
    b = [i < round(candidate * n) for i in range(n)]
    return pair(_run("cand", b, name), _run("champ", a, name))


def test_pairing_counts_flips_and_the_difference_per_family() -> None:
    paired = pair(_run("cand", [True, False, True, True]), _run("champ", [True, True, False, False]))
    assert (paired.pass_to_fail, paired.fail_to_pass) == (1, 2)
    assert paired.delta == 0.25 and paired.candidate == 0.75 and paired.champion == 0.5
    assert [(f.family, f.tasks) for f in paired.families] == [("f0", 2), ("f1", 2)]


def test_the_interval_holds_the_mean_and_is_reproducible() -> None:
    diffs = [1.0] * 30 + [0.0] * 70
    low, high = bootstrap_interval(diffs, seed=1)
    assert low < 0.3 < high and (low, high) == bootstrap_interval(diffs, seed=1)
    assert bootstrap_interval([0.5] * 10) == (0.5, 0.5)


def test_a_candidate_that_learns_the_promoted_tasks_and_keeps_the_base_passes() -> None:
    report = EvalReport(
        candidate="c",
        champion="b",
        seeds=[0],
        suites=[_suite("base", 0.98, 0.98), _suite("promoted", 0.2, 0.9)],
    )
    verdict = judge(report, DEFAULT_RULES)
    assert verdict.passed and verdict.reasons == []


def test_a_base_loss_whose_bound_passes_the_bar_is_rejected_though_its_point_estimate_is_within() -> None:
    report = EvalReport(
        candidate="c",
        champion="b",
        seeds=[0],
        suites=[_suite("base", 0.98, 0.97), _suite("promoted", 0.2, 0.9)],
    )
    base = report.suite("base")
    assert -100 * base.delta <= 2.0 < -100 * base.ci_low  # a 1-point drop that could be 3
    verdict = judge(report, DEFAULT_RULES)
    assert not verdict.passed
    (reason,) = verdict.reasons
    assert reason.startswith("base: drop +") and "exceeds the allowed 2.0" in reason
    lax = GateRules(rules=[GateRule(suite="base", max_loss=2.0, loss_at="point")])
    assert judge(report, lax).passed


def test_a_base_regression_stops_the_candidate_with_the_numbers() -> None:
    report = EvalReport(
        candidate="c",
        champion="b",
        seeds=[0],
        suites=[_suite("base", 0.98, 0.60), _suite("promoted", 0.2, 0.9)],
    )
    verdict = judge(report, DEFAULT_RULES)
    assert not verdict.passed
    reason, family = verdict.reasons
    assert (
        reason.startswith("base: drop +")
        and "exceeds the allowed 2.0" in reason
        and "38 pass->fail" in reason
    )
    assert family.startswith("base: families dropping more than 10.0 points")


def test_a_gain_judged_at_its_lower_bound_needs_enough_tasks() -> None:
    small = EvalReport(candidate="c", champion="b", seeds=[0], suites=[_suite("promoted", 0.3, 0.75, n=8)])
    rules = GateRules(rules=[GateRule(suite="promoted", min_gain=40.0)])
    assert not judge(small, rules).passed
    assert judge(small, GateRules(rules=[GateRule(suite="promoted", min_gain=40.0, gain_at="point")])).passed


def test_a_rule_about_a_missing_suite_fails() -> None:
    report = EvalReport(candidate="c", champion="b", seeds=[0], suites=[_suite("base", 0.9, 0.9)])
    verdict = judge(report, DEFAULT_RULES)
    assert not verdict.passed and "no suite 'promoted'" in verdict.reasons[0]


def test_the_verdict_is_stored_with_the_adapter_as_an_evaluated_event(tmp_path: Path) -> None:
    report = EvalReport(candidate="c", champion="b", seeds=[0], suites=[_suite("base", 0.9, 0.5)])
    store_report(tmp_path, report)
    assert read_evaluation(tmp_path) == (report, None)
    verdict = judge(report, DEFAULT_RULES)
    registry = _registry(tmp_path)
    store_verdict(tmp_path, report, DEFAULT_RULES, verdict, registry)
    assert read_evaluation(tmp_path)[1] == verdict
    (event,) = registry.events(tmp_path.name)
    assert event["type"] == EVALUATED and event["subject"] == tmp_path.name
    assert event["data"]["passed"] is False and event["data"]["suites"][0]["pass_to_fail"] == 40
    assert from_structured(event).episodeid == f"adapter:{tmp_path.name}"


def test_the_adapter_stream_is_hash_chained_and_validated_on_every_append(tmp_path: Path) -> None:
    report = EvalReport(candidate="c", champion="b", seeds=[0], suites=[_suite("base", 0.9, 0.9)])
    registry = _registry(tmp_path)
    for _ in range(2):
        store_verdict(tmp_path, report, DEFAULT_RULES, judge(report, DEFAULT_RULES), registry)
    stream = read_events(registry, tmp_path.name)
    assert [e.seq for e in stream] == [0, 1] and verify_chain(stream) is None
    with registry.store.engine.begin() as db:
        db.execute(
            sa.text('UPDATE release_events SET doc = replace(doc, \'"passed": true\', \'"passed": "maybe"\')')
        )
    with pytest.raises(EventDecodeError):
        read_events(registry, tmp_path.name)


def test_a_family_loss_the_suite_total_hides_stops_the_candidate_when_asked() -> None:
    champion = [True] * 10 + [False] * 10 + [True] * 80
    candidate = [True] * 2 + [False] * 8 + [True] * 8 + [False] * 2 + [True] * 80
    runs = [_run(who, passed, "base") for who, passed in (("c", candidate), ("b", champion))]
    for run in runs:  # tasks 0-9 are family a, 10-19 family b, the rest family c
        run.trials[:] = [
            t.model_copy(update={"family": "a" if i < 10 else "b" if i < 20 else "c"})
            for i, t in enumerate(run.trials)
        ]
    report = EvalReport(candidate="c", champion="b", seeds=[0], suites=[pair(runs[0], runs[1])])
    assert report.suites[0].delta == 0.0
    assert judge(report, GateRules(rules=[GateRule(suite="base", max_loss=2.0, loss_at="point")])).passed
    point_total = GateRule(suite="base", max_loss=2.0, loss_at="point", max_family_loss=5.0)
    verdict = judge(report, GateRules(rules=[point_total]))
    assert not verdict.passed
    assert verdict.reasons == [
        "base: families dropping more than 5.0 points: a +80.0 (100.0% -> 20.0%, 10 tasks)"
    ]
