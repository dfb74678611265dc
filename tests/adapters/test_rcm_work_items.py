"""The rcm domain's work-item check: what the bridge refuses before an episode starts."""

from __future__ import annotations

from adapters.rcm import seed_world
from adapters.rcm.work_items import QUEUE_KIND, work_item_problem
from envs.rcm.queues import QUEUE_KIND as ENVS_QUEUE_KIND
from envs.rcm.tasks import work_item_for
from schemas.tasks import WorkItem


def _item(kind: str, payload: dict[str, object]) -> WorkItem:
    return WorkItem(domain="rcm", kind=kind, item_id="X-1", instructions="work it", payload=payload)


def test_the_work_items_the_task_generator_makes_are_workable() -> None:
    world = seed_world()
    for claim_id in list(world.claims)[:5]:
        assert work_item_problem(work_item_for(world, claim_id)) is None
    assert QUEUE_KIND == ENVS_QUEUE_KIND
    assert work_item_problem(_item(QUEUE_KIND, {"claims": [{"claim_id": "CLM-1"}]})) is None


def test_a_queue_with_a_claim_without_an_id_is_refused_naming_the_claim() -> None:
    problem = work_item_problem(_item(QUEUE_KIND, {"claims": [{"claim_id": "CLM-1"}, {"payer": "BLUE"}]}))
    assert problem is not None and "payload.claims[1].claim_id" in problem
    assert work_item_problem(_item(QUEUE_KIND, {"claims": []})) is not None
    assert work_item_problem(_item("denial", {"claim_id": "  "})) is not None
