"""Credit's counterfactual twins: packages alike but for the borrower's answer, whose decisions differ."""

from __future__ import annotations

import pytest

from envs.adversarial.blind import blind_kit
from envs.adversarial.twins import twin_report, twin_sets
from envs.credit.twins import TWINS, generate_twins, twin_problems
from envs.validate import validate_task
from schemas.tasks import Task


@pytest.fixture(scope="module")
def twins() -> list[Task]:
    return generate_twins(0, 3)


def test_each_family_gives_pairs_that_validate_and_differ_only_in_the_answer(twins: list[Task]) -> None:
    sets = twin_sets(twins)
    assert len(sets) == 3 * len(TWINS) and all(len(pair) == 2 for pair in sets.values())
    assert all(validate_task(t).ok for t in twins), [validate_task(t).problems for t in twins]
    assert twin_problems(twins) == []
    for first, second in sets.values():
        assert first.verifier.params["classes"][0] != second.verifier.params["classes"][0]
        answers = [next(iter(t.initial_world["packages"].values()))["answers"] for t in (first, second)]
        assert answers[0] != answers[1]
    assert [t.model_dump() for t in generate_twins(0, 3)] == [t.model_dump() for t in twins]


def test_the_check_names_packages_that_differ_beyond_the_answer_or_golds_that_agree(
    twins: list[Task],
) -> None:
    sets = list(twin_sets(twins).values())
    mixed = [sets[0][0], sets[1][1].model_copy(update={"tags": sets[0][0].tags})]
    assert any("differ beyond" in p for p in twin_problems(mixed))
    same = [sets[0][0], sets[0][0].model_copy(update={"task_id": "copy"})]
    assert any("also passes" in p for p in twin_problems(same))


def test_a_flag_desk_passes_at_most_one_twin(twins: list[Task]) -> None:
    kit = blind_kit("credit")
    assert kit is not None
    report = twin_report(twins, "credit.v1", kit.fixed)
    assert report is not None and report.misses() == []
    assert all(s.golds_differ and not s.passes_both for s in report.sets)
