"""The Temporal worker for a task queue: the promotion workflow and its activities (`cpu`)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from workflows.promotion.activities import PromotionActivities
from workflows.promotion.workflows import PromoteEdgeCaseWorkflow

WORKFLOWS = [PromoteEdgeCaseWorkflow]


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


def build_worker(
    client: Client, activities: PromotionActivities, queue: str = "cpu", threads: int = 4
) -> Worker:
    """A worker for `queue`; synchronous activities run in a pool of `threads`."""
    return Worker(
        client,
        task_queue=queue,
        workflows=WORKFLOWS,
        activities=activity_functions(activities),
        activity_executor=ThreadPoolExecutor(threads, thread_name_prefix="activity"),
    )
