"""The demo's second production day: fresh cases of the same mix, none the gate judged."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from envs.rcm.tasks import generate_base
from loopline.demo.improvement import BASE_FAMILIES, NEW_FAMILIES, ImprovementSummary, day_two
from loopline.demo.run import fresh_workdir
from training.data.sources import task_family


def test_the_second_day_holds_every_family_of_the_mix_and_no_case_the_gate_judged() -> None:
    day = day_two()
    judged = {t.task_id for t in generate_base(0, per_carc=2)}
    assert {task_family(t) for t in day} == set(BASE_FAMILIES) | set(NEW_FAMILIES)
    assert not judged & {t.task_id for t in day}
    assert len(day) == 8 * (len(BASE_FAMILIES) + len(NEW_FAMILIES))


def _closed() -> ImprovementSummary:
    return ImprovementSummary(
        adapter_id="cycle-good",
        gate_passed=True,
        decision="promote",
        before=0.0,
        after=0.75,
        canary_episodes=12,
    )


def test_a_stage_that_closes_the_loop_reports_no_problem() -> None:
    assert _closed().problems() == []


def test_every_way_the_loop_fails_to_close_is_named() -> None:
    stopped = replace(_closed(), gate_passed=False, decision="", reason="promoted: gain +10.0 points")
    assert stopped.problems() == ["the gate stopped the cycle: promoted: gain +10.0 points"]
    idle = replace(_closed(), canary_episodes=0)
    assert idle.problems() == ["the canary served no episode of the second day"]
    flat = replace(_closed(), after=0.2)
    assert flat.problems() == [
        "the adapter gained +20 points on the day's new cases (0% -> 20%); the stage claims at least +40"
    ]
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
