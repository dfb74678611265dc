"""ImprovementCycleWorkflow on the Temporal dev server: the training activity runs in a separate
`loopline workflows worker --queue gpu` process, which is SIGKILLed mid-training; another gpu
worker resumes the training from its checkpoint, and the cycle completes exactly once: one
dataset, one adapter, one registration, a canary decided by the sequential test."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from loopline.stack.binaries import temporal_bin
from tests.workflows.improvement.tiny import TinyWorld, build_tiny_world
from training.gate import GateRule, GateRules
from training.lora import read_lineage
from training.release.manager import ReleaseManager
from training.release.store import SqlReleaseStore
from workflows.improvement.activities import ImprovementActivities
from workflows.improvement.models import CycleInput, CycleResult, CycleSettings, Suite, TaskSource
from workflows.improvement.trigger import start_cycle
from workflows.improvement.workflows import ImprovementCycleWorkflow, cycle_workflow_id
from workflows.promotion.client import connect
from workflows.worker import improvement_functions

pytestmark = pytest.mark.integration


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(dev_server_existing_path=str(temporal_bin()), ip="127.0.0.1")
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture(scope="module")
def tiny_world(tmp_path_factory: pytest.TempPathFactory) -> TinyWorld:
    return build_tiny_world(tmp_path_factory.mktemp("improvement"))


@contextmanager
def gpu_worker(tmp_path: Path, address: str, queue: str, name: str) -> Iterator[subprocess.Popen[bytes]]:
    """`loopline workflows worker --queue <gpu queue>` as its own process."""
    env = {**os.environ, "LOOPLINE_TEMPORAL_ADDRESS": address, "LOOPLINE_GPU_TASK_QUEUE": queue}
    log = (tmp_path / f"{name}.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "loopline.cli", "workflows", "worker", "--queue", queue, "--no-publish-events"],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()


def cycle(world: TinyWorld, tmp_path: Path, gpu_queue: str) -> CycleInput:
    return CycleInput(
        cycle_id="cycle-1",
        settings=CycleSettings(
            state_dir=str(tmp_path / "state"), tasksets_root=str(world.tasksets_root),
            release_db_url=f"sqlite:///{tmp_path / 'release.db'}", base_model=str(world.base_model),
            primary=TaskSource(specs=("tiny-promoted",)), replay=TaskSource(specs=("tiny-base",)),
            suites=(Suite(name="base", tasks=TaskSource(specs=("tiny-base",))),
                    Suite(name="promoted", tasks=TaskSource(specs=("tiny-promoted",)))),
            gate_rules=GateRules(rules=[GateRule(suite="base", max_loss=100.0)]), epochs=20, batch_size=2, lr=5e-3, rank=4, checkpoint_every=4,
            canary_share=0.5, decide_every_s=0.5, gpu_queue=gpu_queue, train_heartbeat_s=15,
        ),
    )  # fmt: skip


async def wait_for(path: Path, timeout_s: float = 120) -> None:
    for _ in range(int(timeout_s * 10)):
        if path.exists():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


async def feed_canary(manager: ReleaseManager, adapter_id: str, timeout_s: float = 300) -> None:
    """Production: once the adapter is the canary, its episodes pass where the base model's fail."""
    for _ in range(int(timeout_s * 10)):
        record = manager.store.get(adapter_id)
        if record is not None and record.state == "canary":
            for i in range(20):
                manager.observe(f"canary-{i}", adapter_id, passed=True, route="canary")
                manager.observe(f"champion-{i}", None, passed=False, route="champion")
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{adapter_id} never became the canary")


async def test_a_killed_gpu_worker_resumes_training_and_the_cycle_completes_exactly_once(
    dev_server: WorkflowEnvironment, tiny_world: TinyWorld, tmp_path: Path
) -> None:
    address = dev_server.client.service_client.config.target_host
    client: Client = await connect(address)
    cpu_queue, gpu_queue = f"cpu-{uuid.uuid4().hex[:8]}", f"gpu-{uuid.uuid4().hex[:8]}"
    data = cycle(tiny_world, tmp_path, gpu_queue)
    store = SqlReleaseStore(data.settings.release_db_url)
    store.create_schema()
    manager = ReleaseManager(store)
    checkpoint = Path(data.settings.state_dir) / "adapters" / "cycle-1" / ".checkpoint" / "checkpoint.pt"
    async with Worker(
        client, task_queue=cpu_queue, workflows=[ImprovementCycleWorkflow],
        activities=improvement_functions(ImprovementActivities()),
        activity_executor=ThreadPoolExecutor(2),
    ):  # fmt: skip
        assert await start_cycle(client, data, cpu_queue)
        assert not await start_cycle(client, data, cpu_queue)  # a second trigger starts nothing
        with gpu_worker(tmp_path, address, gpu_queue, "first") as first:
            await wait_for(checkpoint)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
        assert not (checkpoint.parent.parent / "lineage.json").exists()  # killed before the end
        with gpu_worker(tmp_path, address, gpu_queue, "second"):
            feeding = asyncio.create_task(feed_canary(manager, "cycle-1"))
            handle = client.get_workflow_handle(cycle_workflow_id("cycle-1"), result_type=CycleResult)
            result = await asyncio.wait_for(handle.result(), timeout=600)
            await feeding
    lineage = read_lineage(checkpoint.parent.parent)
    assert lineage["training"]["resumed_from"] > 0  # the second worker started from the checkpoint
    assert result.registered and result.decision == "promote", result
    assert [r.adapter_id for r in store.adapters()] == ["cycle-1"]
    assert store.get("cycle-1").state == "champion"  # type: ignore[union-attr]
    trail = [e["type"].split(".")[2] for e in manager.events("cycle-1")]
    assert trail == ["trained", "evaluated", "registered", "deployed", "promoted", "deployed"]  # each once
    promoted = manager.events("cycle-1")[4]["data"]
    assert promoted["decided_by"] == "sequential_test" and promoted["evidence"]["canary_wins"] >= 1
