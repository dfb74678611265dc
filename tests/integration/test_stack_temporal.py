"""Temporal is real: a workflow with a signal and an activity completes on the stack's dev server."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from tests.integration.stack_signal_workflow import GreetInput, GreetOnSignalWorkflow, compose_greeting

pytestmark = pytest.mark.integration


async def _greet(client: Client, task_queue: str) -> str:
    async with Worker(
        client, task_queue=task_queue, workflows=[GreetOnSignalWorkflow], activities=[compose_greeting]
    ):
        handle = await client.start_workflow(
            GreetOnSignalWorkflow.run, GreetInput("Hello"), id=f"greet-{uuid.uuid4()}", task_queue=task_queue
        )
        await handle.signal(GreetOnSignalWorkflow.name_arrived, "Ada")
        return (await handle.result()).message


async def test_a_signalled_workflow_runs_its_activity_on_the_stack_dev_server(
    stack: Any, task_queue: str
) -> None:
    client = await Client.connect(stack.temporal_address)
    assert await _greet(client, task_queue) == "Hello Ada, from an activity"


async def test_temporal_env_runs_the_same_workflow_without_a_download(
    temporal_env: WorkflowEnvironment, task_queue: str
) -> None:
    assert await _greet(temporal_env.client, task_queue) == "Hello Ada, from an activity"
