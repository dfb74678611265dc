"""Counterfactual twins: pairs a blind desk cannot tell apart, whose evidence calls for other moves."""

from __future__ import annotations

import pytest

from envs.adversarial.blind import blind_kit
from envs.adversarial.twins import TwinReport, TwinSet, twin_report, twin_sets
from envs.domain import DOMAINS
from envs.rcm.twins import generate_twin_set, generate_twins, recipes, twin_problems, untwinned
from envs.rcm.x12check import remittance_problems
from envs.validate import validate_task
from envs.verifiers.evidence import VISIBLE_TAG
from schemas.tasks import Task, content_hash


@pytest.fixture(scope="module")
def twins() -> list[Task]:
    return generate_twins(0, 2)


def test_every_recipe_gives_pairs_that_validate(twins: list[Task]) -> None:
    sets = twin_sets(twins)
    assert len(sets) == 2 * len(recipes()) and all(len(pair) == 2 for pair in sets.values())
    for task in twins:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
        assert not list(remittance_problems(task)), task.task_id
    assert [t.task_id for t in generate_twins(0, 2)] == [t.task_id for t in twins]
    assert [content_hash(t.model_dump(mode="json")) for t in generate_twins(0, 2)] == [
        content_hash(t.model_dump(mode="json")) for t in twins
    ]


def test_twins_look_the_same_and_call_for_different_moves(twins: list[Task]) -> None:
    assert twin_problems(twins) == []
    for first, second in twin_sets(twins).values():
        assert first.work_item == second.work_item
        resolution = {
            t.task_id: next(x for x in t.tags if x.startswith("resolution:")) for t in (first, second)
        }
        assert first.gold_solution != second.gold_solution, resolution


def test_the_check_names_twins_a_blind_desk_can_tell_apart_or_that_want_the_same_move(
    twins: list[Task],
) -> None:
    sets = list(twin_sets(twins).values())
    mixed = [sets[0][0], sets[1][1].model_copy(update={"tags": sets[0][0].tags})]
    assert any("visible read differs" in p for p in twin_problems(mixed))
    same = [sets[0][0], sets[0][0].model_copy(update={"task_id": "copy"})]
    assert any("also passes" in p for p in twin_problems(same))


def test_a_desk_that_answers_both_twins_the_same_passes_at_most_one(twins: list[Task]) -> None:
    kit = blind_kit("rcm")
    assert kit is not None
    report = twin_report(twins, "rcm.v2", kit.fixed)
    assert report is not None and len(report.sets) == len(twin_sets(twins))
    assert all(s.golds_differ and not s.passes_both for s in report.sets)
    assert report.misses() == []
    # It makes every evidence read, but its notes rest only on what the 835 and the claim show.
    assert report.passed_one["ignoring:code_table"] == 0
    assert twin_report(DOMAINS.get("rcm").task_sets["rcm-base"][0](0, 1), "rcm.v2") is None


def test_the_report_misses_when_a_desk_passes_both_or_the_golds_agree() -> None:
    report = TwinReport(
        verifier="rcm.v2",
        sets=[
            TwinSet(set_id="a", tasks=["x", "y"], golds_differ=False),
            TwinSet(set_id="b", tasks=["z", "w"], golds_differ=True, passes_both=["blind:code_table"]),
        ],
    )
    misses = report.misses()
    assert len(misses) == 2 and "golds pass on both" in misses[0] and "passes both" in misses[1]


def _family(task: Task) -> str:
    """A generated task's family: its edge kind, else its CARC row."""
    tags = [t for t in task.tags if t.startswith("edge:")] or [t for t in task.tags if t.startswith("carc:")]
    return tags[0]


def test_every_family_the_generators_make_has_a_twin_recipe_unless_the_visible_facts_decide_it() -> None:
    sets = {k: make for k, (make, _) in DOMAINS.get("rcm").task_sets.items() if k != "rcm-twins"}
    assert {"rcm-base", "rcm-edge", "rcm-queue"} <= sets.keys()
    visible: dict[str, list[bool]] = {}
    for make in sets.values():
        for task in make(0, 3):
            visible.setdefault(_family(task), []).append(any(t.startswith(VISIBLE_TAG) for t in task.tags))
    twinned = {f"edge:{r.edge}" if r.edge else f"carc:{r.carc}" for r in recipes()}
    # the families the set builds both ways from one draw (take-backs, prompt pay, overpayments)
    twinned |= {_family(t) for t in generate_twin_set(0, 1)}
    decided = {family for family, flags in visible.items() if all(flags)}
    listed = untwinned()
    missing = visible.keys() - decided - twinned - listed.keys()
    assert not missing, f"families without a twin recipe: {sorted(missing)}"
    assert twinned <= visible.keys(), twinned - visible.keys()
    # The exemptions: families every case of which the 835 or the work item decides, and the few
    # the data file lists with the reason no evidence on file could call for another move.
    assert decided and decided.isdisjoint(twinned), decided & twinned
    assert listed.keys() <= visible.keys() - decided - twinned and all(listed.values()), listed


def test_a_document_twin_changes_what_the_document_says_not_its_listing(twins: list[Task]) -> None:
    for first, second in twin_sets(twins).values():
        if not any(
            t.startswith("twin-recipe:distinct_") or t.startswith("twin-recipe:abn_") for t in first.tags
        ):
            continue
        claim = first.work_item.payload["claim_id"]
        docs = [
            (first.initial_world["documents"][k], second.initial_world["documents"][k])
            for k in first.initial_world["documents"]
        ]
        changed = [(a, b) for a, b in docs if a != b]
        assert len(changed) == 1, first.task_id
        a, b = changed[0]
        listed = ("kind", "title", "document_date", "signed", "claim_id")
        assert [a[f] for f in listed] == [b[f] for f in listed] and a["text"] != b["text"], claim
