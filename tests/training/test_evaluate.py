"""Evaluation runs a policy through the environment; generated sets' reused ids stay distinct tasks."""

from __future__ import annotations

from pathlib import Path

from envs.rcm.tasks import generate_base
from training.data import LoadedTaskSet
from training.evaluate import pair, run_suite
from training.structured.policy import load_structured_policy


def test_tasks_of_two_generator_seeds_with_one_id_count_as_two(
    tiny_structured: Path, small_base: LoadedTaskSet
) -> None:
    first = next(t for t in small_base.tasks if "carc:1" in t.tags)
    other = next(t for t in generate_base(1, per_carc=1) if "carc:1" in t.tags)
    assert first.task_id == other.task_id and first.compute_hash() != other.compute_hash()
    policy = load_structured_policy(tiny_structured)
    run = run_suite(policy, "base", [first, other], [0])
    assert len({t.task_id for t in run.trials}) == 2
    paired = pair(run, run)
    assert paired.tasks == 2 and paired.delta == 0.0 and paired.pass_to_fail == 0
    assert [f.family for f in paired.families] == ["carc:1"]
