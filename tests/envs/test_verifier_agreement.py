"""Expert agreement and business-outcome correlation of verifiers: pure metrics, properties included."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.verifiers.agreement import (
    Agreement,
    agreement,
    agreement_by_verifier,
    agreement_summary,
    between_reviewers,
    business_truth,
    cohen_kappa,
    confusion,
    fit_for_training,
    one_per_reviewer,
    outcome_correlation,
    outcome_correlations,
    reviewer_counts,
    roc_auc,
)
from envs.verifiers.outcome_kinds import OutcomeKinds

labels = st.lists(st.booleans(), min_size=1, max_size=200)
pair_lists = st.lists(st.tuples(st.booleans(), st.booleans()), max_size=200)
scored = st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 0.75, 0.9, 1.0]), st.booleans()), max_size=120)


def _brute_force_auc(pairs: list[tuple[float, bool]]) -> float | None:
    good = [s for s, g in pairs if g]
    bad = [s for s, g in pairs if not g]
    if not good or not bad:
        return None
    wins = sum(1.0 if g > b else 0.5 if g == b else 0.0 for g in good for b in bad)
    return wins / (len(good) * len(bad))


def test_counts_accuracy_and_error_rates_follow_the_confusion_table() -> None:
    pairs = [(True, True)] * 6 + [(True, False)] * 2 + [(False, True)] * 1 + [(False, False)] * 3
    result = agreement(pairs, "rcm.v2")
    assert (result.confusion.both_pass, result.confusion.false_pass) == (6, 2)
    assert (result.confusion.false_fail, result.confusion.both_fail) == (1, 3)
    assert result.n == 12 and result.verifier == "rcm.v2"
    assert result.accuracy == pytest.approx(9 / 12)
    assert result.false_pass_rate == pytest.approx(2 / 5)
    assert result.false_fail_rate == pytest.approx(1 / 7)
    # p_o = 9/12; p_e = (8/12)(7/12) + (4/12)(5/12) = 76/144
    assert result.kappa == pytest.approx((9 / 12 - 76 / 144) / (1 - 76 / 144))


@settings(max_examples=200, deadline=None)
@given(expert=labels)
def test_kappa_of_perfect_agreement_is_1_whenever_both_classes_occur(expert: list[bool]) -> None:
    result = agreement([(label, label) for label in expert])
    assert result.accuracy == 1.0
    if len(set(expert)) == 2:
        assert result.kappa == 1.0
    else:
        assert result.kappa is None


@settings(max_examples=200, deadline=None)
@given(half=st.integers(min_value=1, max_value=100))
def test_kappa_of_a_label_flipped_copy_is_minus_1_when_the_classes_are_balanced(half: int) -> None:
    expert = [True] * half + [False] * half
    result = agreement([(not label, label) for label in expert])
    assert result.kappa == -1.0
    assert result.accuracy == 0.0 and result.false_pass_rate == 1.0 and result.false_fail_rate == 1.0


@settings(max_examples=300, deadline=None)
@given(pairs=pair_lists)
def test_kappa_is_symmetric_in_the_raters_and_never_above_1_or_below_minus_1(
    pairs: list[tuple[bool, bool]],
) -> None:
    forward = cohen_kappa(confusion(pairs))
    backward = cohen_kappa(confusion([(b, a) for a, b in pairs]))
    assert forward == backward
    if forward is not None:
        assert -1.0 <= forward <= 1.0


@settings(max_examples=200, deadline=None)
@given(expert=labels)
def test_a_verifier_that_passes_everything_has_kappa_0_or_undefined(expert: list[bool]) -> None:
    result = agreement([(True, label) for label in expert])
    assert result.kappa == (None if all(expert) else 0.0)
    assert result.false_pass_rate == (None if all(expert) else 1.0)


def test_no_pairs_leave_every_rate_undefined() -> None:
    result = agreement([])
    assert result.n == 0
    assert (result.accuracy, result.kappa, result.false_pass_rate, result.false_fail_rate) == (None,) * 4


def test_the_gate_wants_enough_labels_before_anything_else() -> None:
    result = agreement([(True, True), (False, False)] * 20)
    fitness = fit_for_training(result)
    assert not fitness.fit and "40 labels, fewer than the 50 required" in fitness.reason
    assert fit_for_training(result, min_labels=40).fit


def test_the_gate_rejects_a_kappa_below_the_threshold_and_says_so() -> None:
    pairs = [(True, True)] * 25 + [(False, False)] * 17 + [(True, False)] * 8
    fitness = fit_for_training(agreement(pairs))
    assert not fitness.fit and "below 0.8" in fitness.reason
    assert fit_for_training(agreement(pairs), min_kappa=0.6).fit


def test_the_gate_admits_a_kappa_exactly_at_the_threshold() -> None:
    # p_o = 45/50, p_e = (30/50)(25/50) + (20/50)(25/50) = 1/2: kappa = 0.8 exactly
    pairs = [(True, True)] * 25 + [(False, False)] * 20 + [(True, False)] * 5
    assert fit_for_training(agreement(pairs)).fit


def test_the_gate_counts_an_undefined_kappa_as_not_fit() -> None:
    fitness = fit_for_training(agreement([(True, True)] * 60))
    assert not fitness.fit and "undefined" in fitness.reason and "every verdict is pass" in fitness.reason


def test_the_gate_admits_kappa_at_or_above_the_threshold_on_enough_labels() -> None:
    fitness = fit_for_training(agreement([(True, True)] * 30 + [(False, False)] * 30))
    assert fitness.fit and fitness.min_kappa == 0.8 and fitness.min_labels == 50


@pytest.mark.parametrize(("min_kappa", "min_labels"), [(1.5, 50), (-2.0, 50), (0.8, 0)])
def test_the_gate_refuses_thresholds_that_mean_nothing(min_kappa: float, min_labels: int) -> None:
    with pytest.raises(ValueError, match="must"):
        fit_for_training(agreement([(True, True)]), min_kappa, min_labels)


def test_expert_set_labels_feed_the_summary_as_plain_pairs() -> None:
    gold_passed = [(True, True)] * 40  # every gold trajectory: verifier passed, labelled pass
    wrong_moves = [(False, False)] * 38 + [(True, False)] * 2  # two wrong moves slipped through
    summary = agreement_summary("rcm.v2", gold_passed + wrong_moves)
    assert summary.agreement.false_pass_rate == pytest.approx(2 / 40)
    assert summary.fitness.fit
    assert isinstance(summary.agreement, Agreement)


def test_rows_are_summarised_per_verifier_in_name_order() -> None:
    rows = [("rcm.v2", True, True), ("rcm.v1", True, False), ("rcm.v2", False, False)]
    summaries = agreement_by_verifier(rows, min_labels=1)
    assert [s.agreement.verifier for s in summaries] == ["rcm.v1", "rcm.v2"]
    assert summaries[1].agreement.kappa == 1.0 and summaries[0].agreement.false_pass_rate == 1.0


@settings(max_examples=300, deadline=None)
@given(pairs=scored)
def test_auc_equals_the_pairwise_count_with_ties_counted_half(pairs: list[tuple[float, bool]]) -> None:
    expected = _brute_force_auc(pairs)
    result = roc_auc(pairs)
    assert result == (None if expected is None else pytest.approx(expected))


@settings(max_examples=100, deadline=None)
@given(bad=st.integers(1, 30), good=st.integers(1, 30))
def test_auc_of_a_perfect_ranking_is_1_of_a_reversed_one_0_and_of_all_ties_one_half(
    bad: int, good: int
) -> None:
    ranked = [(0.1 * i, False) for i in range(bad)] + [(10.0 + i, True) for i in range(good)]
    assert roc_auc(ranked) == 1.0
    assert roc_auc([(-score, label) for score, label in ranked]) == 0.0
    assert roc_auc([(0.5, label) for _, label in ranked]) == 0.5


def test_auc_needs_both_a_good_and_a_bad_outcome() -> None:
    assert roc_auc([(1.0, True), (0.0, True)]) is None
    assert roc_auc([]) is None


@pytest.mark.parametrize(
    ("kinds", "truth"),
    [
        (["paid"], True),
        (["denied"], False),
        (["denied", "appeal_won"], True),
        (["appeal_won", "denied"], False),
        (["pended"], None),
        ([], None),
        (["paid", "partially_paid"], True),
    ],
)
def test_the_last_outcome_of_a_known_kind_decides_the_business_truth(
    kinds: list[str], truth: bool | None
) -> None:
    assert business_truth(kinds) is truth


def test_outcome_correlation_reports_auc_and_agreement_of_passed_with_good() -> None:
    rows = [(1.0, True, True), (0.9, False, True), (0.5, False, False), (1.0, True, False)]
    result = outcome_correlation("rcm.v2", rows)
    assert (result.n, result.good, result.bad) == (4, 2, 2)
    # good scores {1.0, 0.9} against bad {0.5, 1.0}: 1 + 0.5 + 1 + 0 = 2.5 of 4
    assert result.auc == pytest.approx(2.5 / 4)
    assert result.agreement.confusion.false_pass == 1 and result.agreement.confusion.false_fail == 1
    assert [c.verifier for c in outcome_correlations([("b", 1.0, True, True), ("a", 0.0, False, False)])] == [
        "a",
        "b",
    ]


@pytest.mark.parametrize(
    ("kinds", "truth"),
    [
        (["compliance_certificate"], True),
        (["compliance_certificate", "covenant_breach"], False),
        (["covenant_breach", "amendment", "compliance_certificate"], False),
        (["compliance_certificate", "default"], False),
        (["amendment"], None),
    ],
)
def test_a_credit_breach_or_default_decides_the_business_truth_whatever_follows(
    kinds: list[str], truth: bool | None
) -> None:
    assert business_truth(kinds, "credit") is truth


def test_a_domain_judges_only_its_own_outcome_kinds() -> None:
    assert business_truth(["paid"], "credit") is None
    assert business_truth(["compliance_certificate"], "rcm") is None


def test_outcome_kinds_refuse_a_kind_that_is_both_good_and_bad() -> None:
    with pytest.raises(ValueError, match="both good and bad"):
        OutcomeKinds(good=frozenset({"paid"}), bad=frozenset({"paid"}))


def test_one_label_counts_per_reviewer_per_subject_and_reviewers_are_reported() -> None:
    labels = [("ep-1", "ana", True), ("ep-1", "ana", False), ("ep-2", "ana", True), ("ep-1", "bo", False)]
    assert one_per_reviewer(labels) == [("ep-1", "ana", False), ("ep-2", "ana", True), ("ep-1", "bo", False)]
    assert [(r.reviewer, r.labels) for r in reviewer_counts(labels)] == [("ana", 2), ("bo", 1)]


def test_reviewers_agreement_with_each_other_pairs_reviewers_on_the_same_subject() -> None:
    agree = [(f"ep-{i}", name, i % 2 == 0) for i in range(6) for name in ("ana", "bo")]
    together = between_reviewers(agree)
    assert together.n == 6 and together.kappa == 1.0
    split = [(s, "cy", not passed) for s, name, passed in agree if name == "ana"]
    apart = between_reviewers([x for x in agree if x[1] == "ana"] + split)
    assert apart.n == 6 and apart.kappa == -1.0
    assert between_reviewers([("ep-1", "ana", True), ("ep-2", "bo", True)]).n == 0  # nobody overlaps
