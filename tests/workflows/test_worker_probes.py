"""The workflow worker's `/healthz` and `/readyz` against a real Temporal dev server: ready once its
worker polls the task queue, and gone once the worker stops."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from loopline.stack.binaries import temporal_bin
from workflows.health import Probes
from workflows.settings import WorkflowsSettings
from workflows.worker import serve


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(dev_server_existing_path=str(temporal_bin()), ip="127.0.0.1")
    try:
        yield env
    finally:
        await env.shutdown()


def test_probes_answer_not_ready_until_told_and_404_elsewhere() -> None:
    probes = Probes("cpu")
    assert probes.answer("/healthz") == (200, {"status": "ok"})
    assert probes.answer("/readyz") == (503, {"ready": False, "queue": "cpu"})
    probes.ready = True
    assert probes.answer("/readyz")[0] == 200
    assert probes.answer("/metrics")[0] == 404


@pytest.mark.integration
@pytest.mark.parametrize("queue", ["cpu", "gpu"])
async def test_a_worker_is_ready_once_it_polls_its_queue_and_stops_answering_when_stopped(
    dev_server: WorkflowEnvironment, task_queue: str, tmp_path: Path, queue: str
) -> None:
    port = _free_port()
    name = f"{task_queue}-{queue}"
    settings = WorkflowsSettings(
        temporal_address=dev_server.client.service_client.config.target_host,
        task_queue=name, gpu_task_queue=f"{task_queue}-gpu", health_port=port,
        db_url=f"sqlite:///{tmp_path / 'archive.db'}", drafts_dir=tmp_path / "drafts",
        tasksets_root=tmp_path / "tasksets",
    )  # fmt: skip
    stop = asyncio.Event()
    running = asyncio.create_task(serve(settings, publish=None, with_starter=False, stop=stop))
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:
        for _ in range(300):
            try:
                if (await http.get("/readyz")).status_code == 200:
                    break
            except httpx.TransportError:
                pass  # not listening yet
            await asyncio.sleep(0.1)
        answer = await http.get("/readyz")
        assert answer.status_code == 200 and answer.json() == {"ready": True, "queue": name}
        assert (await http.get("/healthz")).status_code == 200
        stop.set()
        await asyncio.wait_for(running, timeout=30)
        with pytest.raises(httpx.TransportError):
            await http.get("/healthz")
