"""The mutation run: outcome-changing mutants, mutation scores per family, survivors listed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from envs.adversarial.mutation import mutation_report
from envs.adversarial.operator import Calls, MutationContext, Operator
from schemas.tasks import Task


def refund_twice(ctx: MutationContext, calls: Calls) -> Iterator[tuple[str, Calls]]:
    for i, call in enumerate(calls):
        if call.name == "issue_refund":
            yield (
                "refunded twice",
                (*calls[: i + 1], call.model_copy(update={"call_id": "again"}), *calls[i + 1 :]),
            )


def drop_read(ctx: MutationContext, calls: Calls) -> Iterator[tuple[str, Calls]]:
    yield "skipped the read", tuple(c for c in calls if c.name != "get_ticket")


REFUND_TWICE = Operator("refund_twice", "issue the refund twice", refund_twice)
DROP_READ = Operator("drop_read", "skip reading the ticket", drop_read)


def test_a_verifier_that_ignores_an_assertion_lets_the_mutant_survive_and_the_report_lists_it(
    refund: Task,
) -> None:
    report = mutation_report([refund], ["toy.v1", "toy.weak"], operators=[REFUND_TWICE])
    strong, weak = report.verifiers
    assert report.outcome_changing == 1
    assert strong.overall.score == 1.0 and weak.overall.score == 0.0
    [survivor] = report.survivors
    assert (survivor.verifier, survivor.task_id, survivor.operator) == (
        "toy.weak",
        refund.task_id,
        "refund_twice",
    )
    assert survivor.description == "refunded twice" and survivor.score == 1.0


def test_a_mutant_that_reaches_the_gold_outcome_is_counted_but_not_scored(refund: Task) -> None:
    report = mutation_report([refund], ["toy.v1"], operators=[DROP_READ])
    assert report.mutants == 1 and report.outcome_changing == 0
    assert report.verifiers[0].overall.score is None and not report.survivors


def test_scores_are_reported_per_family_and_per_operator(toy_set: Sequence[Task]) -> None:
    report = mutation_report(toy_set, ["toy.weak"], operators=[REFUND_TWICE])
    [weak] = report.verifiers
    families = {r.name: r for r in weak.by_family}
    refunds = sum("kind:refund" in t.tags for t in toy_set)
    assert families["kind:refund"].outcome_changing == refunds and families["kind:refund"].rejected == 0
    assert "kind:escalate" not in families  # escalations have no refund to repeat
    assert [r.name for r in weak.by_operator] == ["refund_twice"]


def test_default_operators_and_verifiers_come_from_the_tasks(toy_set: Sequence[Task]) -> None:
    report = mutation_report(toy_set)
    assert [v.verifier for v in report.verifiers] == ["toy.v1"]
    assert report.mutants > report.outcome_changing > 0


def test_an_unknown_verifier_is_reported_as_an_error_not_raised(refund: Task) -> None:
    report = mutation_report([refund], ["toy.v1", "nope.v9"], operators=[REFUND_TWICE])
    assert report.errors and "nope.v9" in report.errors[0]
    assert report.verifiers[0].overall.outcome_changing == 1


def test_workers_give_the_same_report_as_one_process(toy_set: Sequence[Task]) -> None:
    one = mutation_report(toy_set, ["toy.v1"])
    two = mutation_report(toy_set, ["toy.v1"], workers=2)
    assert one == two


def test_progress_is_called_once_per_task(toy_set: Sequence[Task]) -> None:
    seen: list[tuple[int, int]] = []
    mutation_report(
        toy_set[:3], ["toy.v1"], operators=[REFUND_TWICE], progress=lambda d, n: seen.append((d, n))
    )
    assert seen == [(1, 3), (2, 3), (3, 3)]
