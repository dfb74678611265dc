"""PromoteEdgeCaseWorkflow on a real Temporal server (`temporal_env`: the time-skipping test server
by default): drafts, review by update, gates, publishing once, reminders, refusals, and replay of
the recorded histories with the SDK's `Replayer`."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from adapters.drafting.store import DraftStore
from adapters.surrogates import TOKEN
from envs.credit import generate_edge as generate_credit_edge
from envs.rcm import generate_base
from envs.tasksets import TaskSetRegistry
from schemas import Event
from schemas.events import ToolReturned
from schemas.tasks import Assertion
from tests.workflows.episodes import raw_phi, record, redactor
from workflows.promotion.activities import PromotionActivities
from workflows.promotion.client import ReviewRefused, send_review, start_promotion
from workflows.promotion.models import PromotionState, ReviewDecision, ReviewTimers
from workflows.promotion.workflows import PromoteEdgeCaseWorkflow, workflow_id_for
from workflows.worker import build_worker

HISTORIES = Path(__file__).with_name("histories")
"""Histories recorded by this module's tests (`LOOPLINE_RECORD_HISTORIES=1` rewrites them), replayed
by `Replayer` on every run: a change to the workflow that breaks determinism fails here."""


def replayer() -> Replayer:
    return Replayer(workflows=[PromoteEdgeCaseWorkflow], data_converter=pydantic_data_converter)


def keep(history_json: str, name: str) -> None:
    if os.environ.get("LOOPLINE_RECORD_HISTORIES") == "1":
        HISTORIES.mkdir(exist_ok=True)
        (HISTORIES / name).write_text(history_json)


TASK = next(t for t in generate_base(seed=4, per_carc=1) if "carc:50" in t.tags)


@dataclass
class Desk:
    client: Client
    store: DraftStore
    registry: TaskSetRegistry
    queue: str
    events: dict[str, list[Event]]
    published: list[dict[str, Any]] = field(default_factory=list)

    async def start(
        self, fingerprint: str, episode: list[Event], **timers: float
    ) -> WorkflowHandle[Any, Any]:
        self.events[episode[0].episodeid] = episode
        assert await start_promotion(
            self.client, fingerprint=fingerprint, episode_id=episode[0].episodeid, rule="escalation",
            queue=self.queue, timers=ReviewTimers(**timers),
        )  # fmt: skip
        return self.client.get_workflow_handle_for(PromoteEdgeCaseWorkflow.run, workflow_id_for(fingerprint))

    async def wait_for(self, handle: WorkflowHandle[Any, Any], stage: str) -> PromotionState:
        for _ in range(400):
            state: PromotionState = await handle.query(PromoteEdgeCaseWorkflow.state)
            if state.stage == stage:
                return state
            await asyncio.sleep(0.05)
        raise AssertionError(f"never reached {stage}; last {state}")


@pytest.fixture
async def desk(temporal_env: WorkflowEnvironment, task_queue: str, tmp_path: Path) -> AsyncIterator[Desk]:
    config = temporal_env.client.config()
    config["data_converter"] = pydantic_data_converter
    client = Client(**config)
    events: dict[str, list[Event]] = {}
    store, registry = DraftStore(tmp_path / "drafts"), TaskSetRegistry(tmp_path / "tasksets")
    desk = Desk(client, store, registry, task_queue, events)
    activities = PromotionActivities(
        store=store, episode_events=lambda episode_id: events.get(episode_id, []), registry=registry,
        publish=desk.published.append, tenant="clinic-a",
    )  # fmt: skip
    async with build_worker(client, activities, queue=task_queue, threads=2):
        yield desk


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> list[Event]:
    return record(TASK, redactor(tmp_path_factory.mktemp("vault")))


async def test_an_approved_draft_is_validated_and_published_exactly_once(
    desk: Desk, episode: list[Event]
) -> None:
    handle = await desk.start("a1" * 16, episode)
    state = await desk.wait_for(handle, "awaiting_review")
    assert state.spec_hash and state.draft_id
    outcome = await send_review(
        desk.client, handle.id, ReviewDecision(decision="approve", reviewer="dana", spec_hash=state.spec_hash)
    )
    assert outcome.stage == "published" and outcome.task_set_version == 1
    result = await handle.result()
    assert result.status == "published" and result.task_set_version == 1
    loaded = desk.registry.load("rcm-promoted")
    assert [t.task_id for t in loaded.tasks] == [result.task_id]
    task = loaded.tasks[0]
    assert task.provenance.kind == "promoted" and task.provenance.reviewer == "dana"
    assert task.provenance.episode_id == episode[0].episodeid
    assert f"fingerprint:{'a1' * 16}" in task.tags and any(t.startswith("spec:") for t in task.tags)
    assert [e["type"] for e in desk.published] == ["loopline.task.promoted.v1"]
    assert desk.published[0]["data"]["task_set_version"] == 1
    # the same case again: no second workflow, no second task
    assert not await start_promotion(
        desk.client, fingerprint="a1" * 16, episode_id=episode[0].episodeid, rule="escalation",
        queue=desk.queue, timers=ReviewTimers(),
    )  # fmt: skip
    assert desk.registry.versions("rcm-promoted") == [1]
    history = await handle.fetch_history()
    text = history.to_json()
    assert TOKEN.search(text) is None
    assert sorted(v for v in raw_phi(TASK.initial_world) if v in text) == []
    await replayer().replay_workflow(history)
    keep(history.to_json(), "published.json")


async def test_a_spec_the_gold_does_not_meet_goes_back_to_the_reviewer_and_nothing_is_published(
    desk: Desk, episode: list[Event]
) -> None:
    handle = await desk.start("b2" * 16, episode)
    state = await desk.wait_for(handle, "awaiting_review")
    suggested = desk.store.spec(state.spec_hash or "")
    assert suggested is not None and suggested.outcome is not None
    wrong = Assertion(
        name="appealed",
        reason="the reviewer wants an appeal",
        collection="appeals",
        where={"new": True},
        min_count=1,
    )
    edited = suggested.model_copy(update={"outcome": suggested.outcome.model_copy(update={"must": (wrong,)})})
    decision = ReviewDecision(decision="approve", reviewer="dana", spec_hash=desk.store.put_spec(edited))
    outcome = await send_review(desk.client, handle.id, decision)
    assert outcome.stage == "returned" and outcome.report_id
    report = desk.store.report(outcome.report_id)
    assert report is not None and not report.ok
    assert any("gold solution scores" in p and "appealed" in p for p in report.problems)
    assert desk.registry.versions("rcm-promoted") == []
    status = desk.store.status(state.draft_id or "")
    assert status is not None and status.stage == "returned" and status.report_id == outcome.report_id
    rejected = await send_review(desk.client, handle.id, ReviewDecision(decision="reject", reviewer="dana"))
    assert rejected.stage == "rejected"
    assert (await handle.result()).status == "rejected"
    assert desk.registry.versions("rcm-promoted") == [] and desk.published == []
    history = await handle.fetch_history()
    await replayer().replay_workflow(history)
    keep(history.to_json(), "returned-then-rejected.json")


async def test_a_review_is_refused_while_nothing_waits_for_one(desk: Desk, episode: list[Event]) -> None:
    handle = await desk.start("c3" * 16, episode)
    await desk.wait_for(handle, "awaiting_review")
    with pytest.raises(ReviewRefused, match="needs the spec"):
        await send_review(desk.client, handle.id, ReviewDecision(decision="approve", reviewer="dana"))
    await send_review(desk.client, handle.id, ReviewDecision(decision="reject", reviewer="dana"))
    with pytest.raises(ReviewRefused, match="not waiting for a review"):
        await send_review(desk.client, handle.id, ReviewDecision(decision="reject", reviewer="dana"))


async def test_nobody_reviewing_brings_a_reminder_then_an_escalation(
    desk: Desk, episode: list[Event], temporal_env: WorkflowEnvironment
) -> None:
    handle = await desk.start("d4" * 16, episode, reminder_after_s=600, escalate_after_s=1800)
    state = await desk.wait_for(handle, "awaiting_review")
    await temporal_env.sleep(700)
    after_reminder = await handle.query(PromoteEdgeCaseWorkflow.state)
    assert (after_reminder.reminders, after_reminder.escalated) == (1, False)
    await temporal_env.sleep(1200)
    later = await handle.query(PromoteEdgeCaseWorkflow.state)
    assert (later.reminders, later.escalated) == (1, True)
    kinds = [n.kind for n in desk.store.notifications(state.draft_id)]
    assert kinds == ["reminder", "escalation"]
    await send_review(desk.client, handle.id, ReviewDecision(decision="reject", reviewer="dana"))


async def test_an_unfaithful_draft_fails_the_workflow_as_refused(desk: Desk, episode: list[Event]) -> None:
    tampered: list[Event] = []
    for event in episode:
        data = event.data
        if isinstance(data, ToolReturned) and data.name == "get_claim":
            result = {**data.result, "insurance_balance": -1.0}
            event = event.model_copy(update={"data": data.model_copy(update={"result": result})})
        tampered.append(event)
    handle = await desk.start(
        "e5" * 16, [e.model_copy(update={"episodeid": "ep-tampered"}) for e in tampered]
    )
    with pytest.raises(WorkflowFailureError) as failure:
        await handle.result()
    assert "refused" in str(failure.value.cause)
    statuses = [s for s in desk.store.statuses() if s.fingerprint == "e5" * 16]
    assert [s.stage for s in statuses] == ["refused"]


@pytest.mark.parametrize("path", sorted(HISTORIES.glob("*.json")), ids=lambda p: p.name)
async def test_recorded_histories_replay_deterministically(path: Path) -> None:
    history = WorkflowHistory.from_json(path.stem, json.loads(path.read_text()))
    await replayer().replay_workflow(history)


def test_the_committed_histories_are_there_to_replay() -> None:
    assert {p.name for p in HISTORIES.glob("*.json")} >= {"published.json", "returned-then-rejected.json"}


async def test_one_episode_reported_by_two_rules_becomes_one_task(desk: Desk, episode: list[Event]) -> None:
    first = await desk.start("a7" * 16, episode)
    second = await desk.start("b8" * 16, episode)
    states = [await desk.wait_for(h, "awaiting_review") for h in (first, second)]
    outcomes = [
        await send_review(
            desk.client, h.id, ReviewDecision(decision="approve", reviewer="dana", spec_hash=s.spec_hash)
        )
        for h, s in zip((first, second), states, strict=True)
    ]
    assert [o.stage for o in outcomes] == ["published", "duplicate"]
    results = [await first.result(), await second.result()]
    assert [r.status for r in results] == ["published", "duplicate"]
    assert results[1].task_id == results[0].task_id
    assert [t.task_id for t in desk.registry.load("rcm-promoted").tasks] == [results[0].task_id]
    assert len(desk.published) == 1


async def test_a_credit_edge_case_is_drafted_validated_and_published_to_its_own_task_set(
    desk: Desk, tmp_path: Path
) -> None:
    source = next(t for t in generate_credit_edge(seed=11, per_kind=1) if "edge:currency_mismatch" in t.tags)
    episode = record(source, redactor(tmp_path))
    handle = await desk.start("c7" * 16, episode)
    state = await desk.wait_for(handle, "awaiting_review")
    assert state.spec_hash and state.draft_id
    outcome = await send_review(
        desk.client, handle.id, ReviewDecision(decision="approve", reviewer="lee", spec_hash=state.spec_hash)
    )
    assert outcome.stage == "published"
    assert desk.registry.versions("rcm-promoted") == []
    [task] = desk.registry.load("credit-promoted").tasks
    assert task.domain == "credit" and task.verifier.verifier == "credit.v1"
    assert task.verifier.outcome == source.verifier.outcome  # the generator's own spec, rebuilt
    assert desk.published[0]["data"]["task_set"] == "credit-promoted"
    await replayer().replay_workflow(await handle.fetch_history())
