"""Prompt-pay interest (`envs.rcm.prompt_pay`): interest on a clean claim paid late is requested
from the payer, the days counted from the 277CA receipt, never from the date of service, and not
when the 835 already pays it."""

from __future__ import annotations

import pytest

from adapters.rcm import World, seed_world
from adapters.rcm.models import ProviderAdjustment
from adapters.rcm.x12 import parse_835, validate_835, write_835
from envs.rcm.prompt_pay import interest_request
from envs.rcm.twins import prompt_pay_twins
from envs.rcm.x12check import remittance_problems
from envs.validate import validate_task
from schemas.tasks import Task
from tests.envs.rcm_edge import edge_tasks, score, twin_pairs, variant

KIND = "late_clean_claim"


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return edge_tasks(KIND, 12)


def test_every_variant_is_drawn_validates_and_passes_pyx12(tasks: list[Task]) -> None:
    assert {variant(t) for t in tasks} == {"late", "in_time", "from_receipt", "interest_paid"}
    for task in tasks:
        assert validate_task(task).ok, (task.task_id, validate_task(task).problems)
        assert remittance_problems(task) == []
        asks = [c for c in task.gold_solution if c.name == "submit_appeal"]
        assert bool(asks) == (variant(task) == "late")
        assert all(c.arguments["basis"] == "prompt_pay_interest" for c in asks)


def test_the_interest_request_is_wrong_where_none_is_owed_and_missing_it_fails_where_it_is(
    tasks: list[Task],
) -> None:
    late = next(t for t in tasks if variant(t) == "late")
    ask = next(c for c in late.gold_solution if c.name == "submit_appeal")
    without = tuple(c for c in late.gold_solution if c.name != "submit_appeal")
    assert score(late, without) < 1.0
    for task in (t for t in tasks if variant(t) != "late"):
        moved = ask.model_copy(update={"arguments": {**ask.arguments, "claim_id": task.work_item.item_id}})
        assert score(task, (*task.gold_solution, moved)) < 1.0, task.task_id


def test_the_days_run_from_the_receipt_not_the_date_of_service() -> None:
    world = seed_world()
    rules = world.payers["HRTL"].rules.model_dump(mode="json")
    for claim_id, owed in (("CLM-1123", True), ("CLM-1124", False)):
        claim = world.claims[claim_id].model_dump(mode="json")
        remit = world.latest_remittance(claim_id)
        assert remit is not None
        asked = interest_request(claim, remit.model_dump(mode="json"), rules)
        assert (asked is not None) == owed, claim_id
    served = world.claims["CLM-1124"].first_service_date
    assert (world.latest_remittance("CLM-1124").production_date - served).days > 30  # type: ignore[union-attr]


def test_interest_on_the_835_travels_as_a_plb_l6_and_owes_nothing_more() -> None:
    world = seed_world()
    remit = world.latest_remittance("CLM-1123")
    assert remit is not None
    paid = remit.model_copy(
        update={
            "provider_adjustments": (
                ProviderAdjustment(reason_code="L6", reference="HRTL25112300", amount=-1.75),
            )
        }
    )
    text = write_835([paid], {}, world.practice, world.today)
    assert "PLB*1316246810*20251231*L6:HRTL25112300*-1.75~" in text and "BPR*I*151.75*" in text
    assert validate_835(text) == []
    assert parse_835(text)[0] == [paid]
    claim = world.claims["CLM-1123"].model_dump(mode="json")
    rules = world.payers["HRTL"].rules.model_dump(mode="json")
    assert interest_request(claim, paid.model_dump(mode="json"), rules) is None


def test_prompt_pay_twins_look_the_same_and_call_for_different_moves() -> None:
    twins = prompt_pay_twins(0, 3)
    pairs = twin_pairs(twins, {"late", "in_time"})
    assert len(pairs) == 3
    for first, second in pairs:
        rules = [World.from_snapshot(t.initial_world).payers for t in (first, second)]
        assert rules[0] != rules[1]
