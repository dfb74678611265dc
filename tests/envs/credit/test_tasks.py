"""The credit task generator: deterministic, every decision class and edge family, golds that
replay to full reward while doing nothing scores zero."""

from __future__ import annotations

import envs.credit  # noqa: F401 - registers the domain, the verifier and the task sets
from envs.catalog import generate, task_set_names
from envs.credit.cases import EDGE
from envs.credit.tasks import generate_base, generate_edge
from envs.validate import validate_task
from schemas.tools import ToolCall

CLASSES = {"approve", "approve_with_conditions", "decline", "request_information", "escalate"}


def test_the_same_seed_gives_the_same_tasks_and_another_seed_other_ones() -> None:
    first = [t.compute_hash() for t in generate_base(0, 1)]
    assert first == [t.compute_hash() for t in generate_base(0, 1)]
    assert first != [t.compute_hash() for t in generate_base(1, 1)]


def test_the_base_set_covers_every_decision_class_and_the_edge_set_every_family() -> None:
    base = generate_base(0, 2)
    assert {tag.removeprefix("class:") for t in base for tag in t.tags if tag.startswith("class:")} == CLASSES
    edge = generate_edge(0, 1)
    assert {tag.removeprefix("edge:") for t in edge for tag in t.tags if tag.startswith("edge:")} == set(EDGE)


def test_every_gold_replays_to_full_reward_and_doing_nothing_scores_zero() -> None:
    for task in [*generate_base(0, 2), *generate_edge(0, 1)]:
        found = validate_task(task)
        assert found.ok, (task.task_id, found.problems)


def test_a_task_where_policy_allows_two_decisions_carries_a_gold_for_each() -> None:
    two = [t for t in generate_edge(0, 2) if sum(tag.startswith("class:") for tag in t.tags) == 2]
    assert two and all(len(t.alternative_solutions) == 1 for t in two)

    def move(call: ToolCall) -> tuple[str, object]:
        return call.name, call.arguments.get("decision")

    assert all(move(t.gold_solution[-1]) != move(t.alternative_solutions[0][-1]) for t in two)


def test_the_task_sets_are_offered_by_name() -> None:
    assert {"credit-base", "credit-edge"} <= set(task_set_names())
    assert len(generate("credit-edge", 0)) >= 60


def test_envs_validate_passes_the_credit_edge_set_and_groups_it_by_family() -> None:
    from typer.testing import CliRunner

    from loopline.cli import app

    result = CliRunner().invoke(app, ["envs", "validate", "-t", "credit-edge"])
    assert result.exit_code == 0, result.stdout
    assert "covenant_lite" in result.stdout and "every gold solution scores 1.0" in result.stdout
