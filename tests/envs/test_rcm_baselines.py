"""Gold validation on the full RCM sets; baselines on a stratified sample (the bench runs them all)."""

from __future__ import annotations

import pytest

from envs.catalog import policy
from envs.rollout import run_rollouts, summarize
from envs.validate import validate_task
from schemas.tasks import Task

NAIVE = ("always_resubmit", "always_appeal", "write_off_all", "escalate_all")


def test_every_gold_solution_scores_one_and_doing_nothing_scores_zero(
    rcm_base: list[Task], rcm_edge: list[Task]
) -> None:
    # The gold solutions are the reference specialist's calls, so this is also "reference = 1.0 on
    # every task" for seed 0; other seeds are the CLI's sweep (`loopline envs validate --seed N`).
    results = [validate_task(task) for task in [*rcm_base, *rcm_edge]]
    assert [(r.task_id, r.problems) for r in results if not r.ok] == []


def test_the_reference_specialist_passes_every_sampled_task(rcm_sample: list[Task]) -> None:
    records = run_rollouts(rcm_sample, policy("rcm", "reference"))
    assert [r.task_id for r in records if not r.verdict.passed] == []
    assert all(r.calls == t.gold_solution for r, t in zip(records, rcm_sample, strict=True))


@pytest.mark.parametrize("name", NAIVE)
def test_naive_baselines_score_far_below_the_reference(name: str, rcm_sample: list[Task]) -> None:
    records = run_rollouts(rcm_sample, policy("rcm", name))
    stats = summarize(records, "carc")
    print(f"\n{name}: " + ", ".join(f"{s.category} {s.pass_rate:.0%}" for s in stats))
    overall = stats[-1]
    assert overall.category == "all" and overall.pass_rate < 0.35
    # No naive move is right for every kind of denial: most categories must defeat it entirely.
    assert sum(s.pass_rate == 0.0 for s in stats[:-1]) >= len(stats[:-1]) * 0.6
