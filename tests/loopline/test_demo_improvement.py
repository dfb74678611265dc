"""The demo's second production day: fresh cases of the same mix, none the gate judged."""

from __future__ import annotations

from envs.rcm.tasks import generate_base
from loopline.demo.improvement import BASE_FAMILIES, NEW_FAMILIES, day_two
from training.data.sources import task_family


def test_the_second_day_holds_every_family_of_the_mix_and_no_case_the_gate_judged() -> None:
    day = day_two()
    judged = {t.task_id for t in generate_base(0, per_carc=2)}
    assert {task_family(t) for t in day} == set(BASE_FAMILIES) | set(NEW_FAMILIES)
    assert not judged & {t.task_id for t in day}
    assert len(day) == 8 * (len(BASE_FAMILIES) + len(NEW_FAMILIES))
