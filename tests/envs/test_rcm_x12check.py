"""Every remittance a generated rcm task holds is a valid X12 835 (pyx12, 005010X221A1)."""

from __future__ import annotations

from envs.rcm.vocab import PAYERS
from envs.rcm.x12check import remittance_problems
from schemas.tasks import Task


def test_every_generated_task_passes_pyx12(rcm_base: list[Task], rcm_edge: list[Task]) -> None:
    failing = {t.task_id: p for t in [*rcm_base, *rcm_edge] if (p := remittance_problems(t))}
    assert failing == {}


def test_commercial_payers_use_835_plan_type_filing_indicators() -> None:
    commercial = {p.payer_id: p.claim_filing_indicator for p in PAYERS if p.kind == "commercial"}
    assert commercial and set(commercial.values()) <= {"12", "13", "14", "15", "HM"}


def test_a_remittance_with_the_837_only_ci_indicator_is_reported(rcm_base: list[Task]) -> None:
    task = rcm_base[0]
    world = task.initial_world
    remits = {k: {**r, "claim_filing_indicator": "CI"} for k, r in world["remittances"].items()}
    broken = task.model_copy(update={"initial_world": {**world, "remittances": remits}})
    problems = remittance_problems(broken)
    assert problems and all("CLP06" in p for p in problems)


def test_a_task_of_another_domain_or_without_remittances_has_nothing_to_check(
    rcm_base: list[Task],
) -> None:
    task = rcm_base[0]
    assert remittance_problems(task.model_copy(update={"domain": "toy"})) == []
    empty = task.model_copy(update={"initial_world": {**task.initial_world, "remittances": {}}})
    assert remittance_problems(empty) == []


def test_a_world_that_does_not_load_is_a_problem_not_a_crash(rcm_base: list[Task]) -> None:
    task = rcm_base[0]
    broken = task.model_copy(update={"initial_world": {**task.initial_world, "today": "not a date"}})
    (problem,) = remittance_problems(broken)
    assert problem.startswith("835: the task's world does not load")
