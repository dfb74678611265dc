"""Credit's counterfactual twins: packages whose flags read alike, whose evidence calls for another
decision, for every family the generators make."""

from __future__ import annotations

import random

import pytest

from adapters.credit.models import FundPolicy
from envs.adversarial.blind import blind_kit
from envs.adversarial.twins import twin_report, twin_sets
from envs.credit.addbacks import judge
from envs.credit.flags import FLAGS_HOLD
from envs.credit.tasks import generate_base, generate_edge
from envs.credit.twin_edits import EDITS, line_edits
from envs.credit.twins import EDIT_TAG, families, generate_twins, shown, twin_problems, untwinned
from envs.validate import validate_task
from schemas.tasks import Task, content_hash


@pytest.fixture(scope="module")
def twins() -> list[Task]:
    return generate_twins(0, 2)


def _family(task: Task) -> str:
    return next(t for t in task.tags if t.startswith(("recipe:", "edge:")))


def test_each_family_gives_pairs_that_validate_and_read_alike_on_their_flags(twins: list[Task]) -> None:
    sets = twin_sets(twins)
    twinned = families().keys() - untwinned().keys()
    assert len(sets) == 2 * len(twinned) and all(len(pair) == 2 for pair in sets.values())
    assert {_family(t) for t in twins} == twinned
    assert all(validate_task(t).ok for t in twins), [validate_task(t).problems for t in twins]
    assert twin_problems(twins) == []
    for first, second in sets.values():
        assert first.work_item == second.work_item
        assert first.initial_world != second.initial_world
        assert first.gold_solution != second.gold_solution
        assert any(t.startswith(EDIT_TAG) for t in first.tags)
    assert [content_hash(t.model_dump(mode="json")) for t in generate_twins(0, 2)] == [
        content_hash(t.model_dump(mode="json")) for t in twins
    ]


def test_most_pairs_call_for_another_class_and_at_most_one_twin_is_decided_by_its_flags(
    twins: list[Task],
) -> None:
    sets = list(twin_sets(twins).values())
    apart = [p for p in sets if p[0].verifier.params["classes"][0] not in p[1].verifier.params["classes"]]
    assert len(apart) >= len(sets) // 3, len(apart)
    assert not any(all(FLAGS_HOLD in t.tags for t in pair) for pair in sets)


def test_the_check_names_packages_whose_flags_differ_or_golds_that_agree(twins: list[Task]) -> None:
    sets = list(twin_sets(twins).values())
    mixed = [sets[0][0], sets[1][1].model_copy(update={"tags": sets[0][0].tags})]
    assert any("flags read differently" in p for p in twin_problems(mixed))
    same = [sets[0][0], sets[0][0].model_copy(update={"task_id": "copy"})]
    assert any("also passes" in p for p in twin_problems(same))


def test_an_edit_changes_only_what_the_flags_hide() -> None:
    policy = FundPolicy()
    made = 0
    for name, draw in families().items():
        rng = random.Random(f"edits:{name}")
        package, _ = draw(rng, "PKG-9999", policy)
        for edit in EDITS:
            for _, twin in edit(package, rng):
                assert shown(twin) == shown(package), name
                assert twin != package, name
                made += 1
        for edit_name, twin in line_edits(package, rng):
            changed = [
                (a, b) for a, b in zip(package.bridge.addbacks, twin.bridge.addbacks, strict=True) if a != b
            ]
            assert len(changed) == 1
            before, after = changed[0]
            # The line is judged another way than before: honest made a trap, or a trap made honest.
            assert judge(before, policy).accepted != judge(after, policy).accepted, edit_name
    assert made > len(families())


def test_a_flag_desk_passes_at_most_one_twin(twins: list[Task]) -> None:
    kit = blind_kit("credit")
    assert kit is not None
    report = twin_report(twins, "credit.v1", kit.fixed)
    assert report is not None and report.misses() == []
    assert all(s.golds_differ and not s.passes_both for s in report.sets)


def test_every_family_the_generators_make_has_a_twin_recipe_unless_the_visible_facts_decide_it() -> None:
    visible: dict[str, list[bool]] = {}
    for task in [*generate_base(0, 2), *generate_edge(0, 2)]:
        visible.setdefault(_family(task), []).append(FLAGS_HOLD in task.tags)
    decided = {family for family, flags in visible.items() if all(flags)}
    listed = untwinned()
    twinned = families().keys() - listed.keys()
    missing = visible.keys() - decided - twinned - listed.keys()
    assert not missing, f"families without twins: {sorted(missing)}"
    assert families().keys() == visible.keys()
    assert listed.keys() <= visible.keys() and all(listed.values()), listed
