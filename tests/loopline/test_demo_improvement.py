"""The demo's improvement stage: what it learns, what it is judged on and what the second day serves
are fresh instances of what stage 8 promoted, each used once; every way the loop fails is named."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from envs.instances import case_of
from envs.rcm.tasks import generate_base
from envs.tasksets import TaskSetRegistry
from loopline.demo.charts import FamilyRates, Rate
from loopline.demo.improvement import (
    cycle_input,
    day_two,
    expressible,
    is_promoted_case,
    promoted_tasks,
    publish_sets,
    source_families,
)
from loopline.demo.run import fresh_workdir
from loopline.demo.stage_config import (
    BASE_EVAL,
    CHAMPION,
    DAY_BASE,
    DAY_PER_CASE,
    EVAL_PER_CASE,
    PROMOTED_SET,
    REHEARSAL_SEEDS,
)
from loopline.demo.stage_summary import ImprovementSummary
from training.data.sources import task_family


def test_promoted_cases_are_learned_judged_and_served_on_separate_instances(tmp_path: Path) -> None:
    promoted = generate_base(5, per_carc=1)[:1]  # a stand-in for what stage 8 published
    TaskSetRegistry(tmp_path / "promotion").publish(PROMOTED_SET, promoted)
    assert [t.task_id for t in promoted_tasks(tmp_path / "promotion")] == [t.task_id for t in promoted]
    assert promoted_tasks(tmp_path / "nothing") == []
    sizes = publish_sets(tmp_path / "sets", promoted)
    registry = TaskSetRegistry(tmp_path / "sets")
    learned, judged = (list(registry.load(n).tasks) for n in ("demo-promoted-train", "demo-promoted-eval"))
    day = day_two(promoted)
    served = [t for t in day if is_promoted_case(task_family(t))]
    assert sizes["demo-promoted-eval"] == len(judged) == EVAL_PER_CASE * len(promoted) >= 40
    assert len(served) == DAY_PER_CASE * len(promoted)
    for one in (learned, judged, served):
        assert {case_of(t) for t in one} == {t.task_id for t in promoted}
    hashes = [{t.compute_hash() for t in one} for one in (learned, judged, served, promoted)]
    assert sum(len(h) for h in hashes) == len(set().union(*hashes))  # no instance used twice
    base_day = {t.compute_hash() for t in day if not is_promoted_case(task_family(t))}
    judged_base = {t.compute_hash() for t in generate_base(BASE_EVAL[0], per_carc=BASE_EVAL[1])}
    assert base_day and not base_day & judged_base


def test_the_rehearsal_reads_the_promoted_cases_own_families_from_seeds_nothing_else_reads(
    tmp_path: Path,
) -> None:
    promoted = [t for t in generate_base(5, per_carc=1) if task_family(t) in ("carc:1", "carc:B7")]
    assert source_families(promoted) == ("carc:1", "carc:B7")
    settings = cycle_input(tmp_path, tmp_path / "m", "c", "gpu", families=source_families(promoted)).settings
    assert settings.rehearsal.families == ("carc:1", "carc:B7") and settings.rehearsal.specs
    assert not cycle_input(tmp_path, tmp_path / "m", "c", "gpu").settings.rehearsal.specs
    others = {BASE_EVAL[0], DAY_BASE[0], *CHAMPION.seeds}
    assert not set(REHEARSAL_SEEDS) & others  # never the champion's, the gate's or the day's cases


def test_a_case_whose_gold_writes_a_value_no_tool_returned_is_beyond_the_demo_policy() -> None:
    task = generate_base(5, per_carc=1)[0]
    assert expressible(task)
    *reads, last = task.gold_solution
    invented = last.model_copy(update={"arguments": {**last.arguments, "claim_id": "CLM-NOWHERE-7"}})
    assert not expressible(task.model_copy(update={"gold_solution": (*reads, invented)}))


def _closed() -> ImprovementSummary:
    return ImprovementSummary(
        adapter_id="cycle-good",
        gate_passed=True,
        decision="promote",
        before=0.5,
        after=1.0,
        canary_episodes=12,
        promoted_cases=6,
    )


def test_a_stage_that_closes_the_loop_reports_no_problem() -> None:
    assert _closed().problems() == []


def test_every_way_the_loop_fails_to_close_is_named() -> None:
    stopped = replace(_closed(), gate_passed=False, decision="", reason="promoted: gain +10.0 points")
    assert stopped.problems() == ["the gate stopped the cycle: promoted: gain +10.0 points"]
    idle = replace(_closed(), canary_episodes=0)
    assert idle.problems() == ["the canary served no episode of the second day"]
    flat = replace(_closed(), after=0.7)
    assert flat.problems() == [
        "the adapter gained +20 points on the day's promoted cases (50% -> 70%); the stage claims at least +40"
    ]
    empty = replace(_closed(), promoted_cases=0)
    assert empty.problems() == ["stage 8 published no promoted case: the cycle had nothing to learn"]
    beyond = replace(empty, beyond_policy=["promoted-1"])
    assert beyond.problems() == [
        "stage 8 published no promoted case the demo's policy can write: the cycle had nothing to learn"
    ]
    unserved = replace(
        _closed(), gate_passed=False, reason="r", families=[FamilyRates("case:x", Rate(1, 2), Rate(0, 0))]
    )
    assert (
        "the adapter was never served, so nothing shows a gain on the day's promoted cases"
        in unserved.problems()
    )
    held = replace(_closed(), decision="roll_back")
    assert held.problems() == ["the sequential test did not promote the adapter (roll_back)"]


def test_a_forced_bad_adapter_closes_only_when_it_is_rolled_back() -> None:
    bad = replace(_closed(), forced=True, gate_passed=False, decision="roll_back", after=0.0)
    assert bad.problems() == []
    assert replace(bad, decision="promote").problems() == [
        "the forced bad adapter was not rolled back (decision promote)"
    ]


def test_a_new_run_keeps_only_what_promotion_published(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    (work / "promotion" / "tasksets").mkdir(parents=True)
    (work / "promotion" / "tasksets" / "v1.json").write_text("{}")
    (work / "bridge").mkdir()
    (work / "archive.db").write_text("old")
    fresh_workdir(work)
    assert sorted(p.name for p in work.iterdir()) == ["promotion"]
    assert (work / "promotion" / "tasksets" / "v1.json").read_text() == "{}"
