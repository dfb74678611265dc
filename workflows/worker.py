"""The Temporal worker for a task queue: the promotion and improvement workflows and their
activities (`cpu`), and optionally the edge-case starter beside it (`loopline workflows worker
--with-starter`); on the `gpu` queue, the training activity alone (`--queue gpu`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from temporalio.client import Client
from temporalio.worker import Interceptor, Worker

from adapters.drafting.store import DraftStore
from bridge.store import SqlEpisodeReader, SqlEventArchive
from envs.tasksets import TaskSetRegistry
from workflows.health import Probes
from workflows.improvement.activities import ImprovementActivities
from workflows.improvement.workflows import ImprovementCycleWorkflow
from workflows.metrics import worker_metrics
from workflows.promotion.activities import PromotionActivities, Publisher
from workflows.promotion.client import connect
from workflows.promotion.models import ReviewTimers
from workflows.promotion.sources import archive_cases, archive_events
from workflows.promotion.starter import EdgeCaseStarter
from workflows.promotion.workflows import PromoteEdgeCaseWorkflow
from workflows.settings import WorkflowsSettings

WORKFLOWS = [PromoteEdgeCaseWorkflow, ImprovementCycleWorkflow]


def activity_functions(activities: PromotionActivities) -> list[Callable[..., Any]]:
    """The activities a worker registers."""
    return [
        activities.build_task_draft,
        activities.find_duplicate,
        activities.suggest_outcome_spec,
        activities.record_stage,
        activities.notify_reviewers,
        activities.validate_candidate,
        activities.publish_task,
    ]


def improvement_functions(activities: ImprovementActivities) -> list[Callable[..., Any]]:
    """The improvement cycle's activities a `cpu` worker registers (training runs on `gpu`)."""
    return [
        activities.build_dataset,
        activities.evaluate_adapter,
        activities.gate_adapter,
        activities.register_adapter,
        activities.deploy_canary,
        activities.decide_canary,
        activities.end_canary,
    ]


def build_worker(
    client: Client,
    activities: PromotionActivities,
    queue: str = "cpu",
    threads: int = 4,
    interceptors: Sequence[Interceptor] = (),
) -> Worker:
    """A worker for `queue`; synchronous activities run in a pool of `threads`."""
    return Worker(
        client,
        task_queue=queue,
        workflows=WORKFLOWS,
        activities=[*activity_functions(activities), *improvement_functions(ImprovementActivities())],
        activity_executor=ThreadPoolExecutor(threads, thread_name_prefix="activity"),
        interceptors=interceptors,
    )


def build_gpu_worker(client: Client, queue: str = "gpu") -> Worker:
    """A worker for the training activity only: one training at a time per worker."""
    return Worker(
        client,
        task_queue=queue,
        activities=[ImprovementActivities().train_adapter],
        activity_executor=ThreadPoolExecutor(1, thread_name_prefix="training"),
        max_concurrent_activities=1,
    )


async def serve(
    settings: WorkflowsSettings,
    *,
    publish: Publisher | None,
    with_starter: bool,
    rules: Collection[str] | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Run a worker for `settings.task_queue` (and the edge-case starter) until `stop` is set."""
    stop = stop or asyncio.Event()
    probes = Probes(settings.task_queue)
    if settings.health_port is not None:
        await probes.start(settings.health_bind, settings.health_port)
    try:
        await _serve(settings, probes, publish=publish, with_starter=with_starter, rules=rules, stop=stop)
    finally:
        probes.ready = False
        await probes.close()


async def _serve(
    settings: WorkflowsSettings,
    probes: Probes,
    *,
    publish: Publisher | None,
    with_starter: bool,
    rules: Collection[str] | None,
    stop: asyncio.Event,
) -> None:
    client = await connect(settings.temporal_address, settings.temporal_namespace)
    if settings.task_queue == settings.gpu_task_queue:
        async with build_gpu_worker(client, settings.task_queue):
            probes.ready = True
            await stop.wait()
        return
    archive = SqlEventArchive(settings.db_url)
    archive.create_schema()
    reader = SqlEpisodeReader(archive.engine)
    activities = PromotionActivities(
        store=DraftStore(settings.drafts_dir),
        episode_events=archive_events(reader),
        registry=TaskSetRegistry(settings.tasksets_root),
        task_set=settings.promoted_task_set,
        threshold=settings.draft_threshold,
        publish=publish,
        tenant=settings.tenant,
    )
    timers = ReviewTimers(
        reminder_after_s=settings.review_reminder_s, escalate_after_s=settings.review_escalate_s
    )
    interceptors = worker_metrics(settings.workflows_metrics_port, activities.store, settings.health_bind)
    async with build_worker(client, activities, settings.task_queue, settings.activity_threads, interceptors):
        probes.ready = True
        jobs = []
        if with_starter:
            starter = EdgeCaseStarter(
                client, lambda: archive_cases(reader), settings.task_queue, timers, rules
            )
            jobs.append(asyncio.create_task(starter.run(stop)))
        await stop.wait()
        for job in jobs:
            await job
