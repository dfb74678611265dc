"""A workflow worker on a real Temporal server serves `/metrics` that parse with Prometheus'
parser: the activities it ran by type and outcome, the promotion stages reached, and the drafts by
stage, after a promotion runs to publication."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from adapters.drafting.store import DraftStore
from bridge.metrics.exposition import serve_metrics
from envs.tasksets import TaskSetRegistry
from schemas import Event
from tests.workflows.episodes import record, redactor
from tests.workflows.test_promotion_workflow import TASK
from workflows.metrics import workflow_registry
from workflows.promotion.activities import PromotionActivities
from workflows.promotion.client import send_review, start_promotion
from workflows.promotion.models import PromotionState, ReviewDecision, ReviewTimers
from workflows.promotion.workflows import PromoteEdgeCaseWorkflow, workflow_id_for
from workflows.worker import build_worker


async def _stage(handle: Any, stage: str) -> PromotionState:
    import asyncio

    for _ in range(400):
        state: PromotionState = await handle.query(PromoteEdgeCaseWorkflow.state)
        if state.stage == stage:
            return state
        await asyncio.sleep(0.05)
    raise AssertionError(f"never reached {stage}")


@pytest.mark.integration
async def test_a_worker_reports_activities_stages_and_drafts(
    temporal_env: WorkflowEnvironment, task_queue: str, tmp_path: Path
) -> None:
    config = temporal_env.client.config()
    config["data_converter"] = pydantic_data_converter
    client = Client(**config)
    (tmp_path / "vault").mkdir()
    episode: list[Event] = record(TASK, redactor(tmp_path / "vault"))
    store = DraftStore(tmp_path / "drafts")
    activities = PromotionActivities(
        store=store, episode_events=lambda _id: episode, registry=TaskSetRegistry(tmp_path / "sets"),
        publish=lambda _doc: None, tenant="clinic-a",
    )  # fmt: skip
    registry, interceptor = workflow_registry(store)
    server, _ = serve_metrics(registry, 0, "127.0.0.1")
    try:
        async with build_worker(client, activities, queue=task_queue, threads=2, interceptors=[interceptor]):
            fingerprint = "c3" * 16
            assert await start_promotion(
                client, fingerprint=fingerprint, episode_id=episode[0].episodeid, rule="escalation",
                queue=task_queue, timers=ReviewTimers(),
            )  # fmt: skip
            handle = client.get_workflow_handle_for(PromoteEdgeCaseWorkflow.run, workflow_id_for(fingerprint))
            state = await _stage(handle, "awaiting_review")
            decision = ReviewDecision(decision="approve", reviewer="dana", spec_hash=state.spec_hash)
            assert (await send_review(client, handle.id, decision)).stage == "published"
            await handle.result()
        text = httpx.get(f"http://127.0.0.1:{server.server_port}/metrics").text
    finally:
        server.shutdown()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    ran = {dict(k[1])["activity"] for k in samples if k[0] == "loopline_workflow_activities_total"}
    assert {"build_task_draft", "record_stage", "validate_candidate", "publish_task"} <= ran
    assert (
        samples[
            ("loopline_workflow_activities_total", (("activity", "publish_task"), ("outcome", "completed")))
        ]
        == 1
    )
    stages = {dict(k[1])["stage"]: v for k, v in samples.items() if k[0] == "loopline_promotion_stages_total"}
    assert stages == {"awaiting_review": 1, "validating": 1, "publishing": 1}
    assert samples[("loopline_promotion_drafts", (("stage", "published"),))] == 1
    assert ("loopline_workflow_activity_seconds_count", (("activity", "publish_task"),)) in samples
