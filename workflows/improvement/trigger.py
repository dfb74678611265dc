"""Starting improvement cycles: now, on a Temporal schedule, or when enough new tasks have been
promoted since the last cycle. A cycle's workflow id is fixed by its cycle id, so a cycle starts
at most once however often a trigger fires."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleSpec,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from envs.tasksets import TaskSetRegistry
from workflows.improvement.models import CycleInput
from workflows.improvement.workflows import ImprovementCycleWorkflow, cycle_workflow_id


async def start_cycle(client: Client, data: CycleInput, queue: str) -> bool:
    """Start the cycle; False when a cycle of that id runs or ran already."""
    try:
        await client.start_workflow(
            ImprovementCycleWorkflow.run,
            data,
            id=cycle_workflow_id(data.cycle_id),
            task_queue=queue,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
        )
    except WorkflowAlreadyStartedError:
        return False
    return True


async def schedule_cycles(client: Client, name: str, data: CycleInput, queue: str, every: timedelta) -> bool:
    """A Temporal schedule that starts a cycle every `every` (its cycle id taken from the run's
    workflow id); False when the schedule exists already."""
    try:
        await client.create_schedule(
            f"improvement-{name}",
            Schedule(
                action=ScheduleActionStartWorkflow(
                    ImprovementCycleWorkflow.run,
                    data.model_copy(update={"cycle_id": "auto"}),
                    id=cycle_workflow_id(name),
                    task_queue=queue,
                ),
                spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
            ),
        )
    except ScheduleAlreadyRunningError:
        return False
    return True


def new_promoted_tasks(registry: TaskSetRegistry, task_set: str, marker: Path) -> tuple[int, int]:
    """(latest version of `task_set`, tasks added since the version the marker names)."""
    versions = registry.versions(task_set) if task_set in registry.names() else []
    if not versions:
        return 0, 0
    latest = versions[-1]
    seen = json.loads(marker.read_text()) if marker.is_file() else {"version": 0, "tasks": 0}
    return latest, len(registry.load(task_set, latest)) - int(seen["tasks"])


async def start_when_enough_promoted(
    client: Client,
    data: CycleInput,
    queue: str,
    *,
    registry: TaskSetRegistry,
    task_set: str,
    min_new_tasks: int,
    marker: Path,
) -> str | None:
    """Start a cycle named after the task set's latest version when at least `min_new_tasks`
    were promoted since the last cycle this trigger started; returns its id, or None."""
    version, added = new_promoted_tasks(registry, task_set, marker)
    if added < min_new_tasks:
        return None
    cycle_id = f"{task_set}-v{version}"
    await start_cycle(client, data.model_copy(update={"cycle_id": cycle_id}), queue)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"version": version, "tasks": len(registry.load(task_set, version))}))
    return cycle_id
