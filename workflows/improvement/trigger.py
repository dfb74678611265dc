"""Starting an improvement cycle. A cycle's workflow id is fixed by its cycle id, so a cycle starts
at most once however often it is started."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

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
