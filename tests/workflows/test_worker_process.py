"""The worker as its own process (`loopline workflows worker --with-starter`), killed with SIGKILL
mid-promotion and restarted, while the same edge case is detected twice: exactly one task is
promoted.

On the Temporal dev server, always: the time-skipping test server never hands a killed worker's
sticky workflow task to the next worker (queries time out), which real servers do.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from adapters.drafting.store import DraftStore, PromotionStatus
from bridge.store import ArchiveRecord, SqlEventArchive
from envs.rcm import generate_base
from envs.tasksets import TaskSetRegistry
from loopline.stack.binaries import temporal_bin
from schemas.chain import EpisodeChain
from schemas.events import EdgeCaseDetected
from tests.workflows.episodes import record, redactor
from workflows.promotion.client import connect, send_review
from workflows.promotion.models import ReviewDecision
from workflows.promotion.workflows import workflow_id_for

FINGERPRINT = "9a" * 20
TASK = next(t for t in generate_base(seed=6, per_carc=1) if "carc:45" in t.tags)


@contextmanager
def worker(tmp_path: Path, address: str, queue: str, name: str) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ, "LOOPLINE_TEMPORAL_ADDRESS": address, "LOOPLINE_TASK_QUEUE": queue,
        "LOOPLINE_DB_URL": f"sqlite:///{tmp_path / 'archive.db'}", "LOOPLINE_DRAFTS_DIR": str(tmp_path / "drafts"),
        "LOOPLINE_TASKSETS_ROOT": str(tmp_path / "tasksets"),
    }  # fmt: skip
    log = (tmp_path / f"{name}.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "loopline.cli", "workflows", "worker", "--with-starter", "--no-publish-events"],
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


def detected(archive: SqlEventArchive, episode_id: str, seq: int, prevhash: str | None = None) -> str:
    """An `edge_case.detected` report for the case, as the detector archives it."""
    kwargs = {"next_seq": seq, "prevhash": prevhash} if prevhash else {}
    chain = EpisodeChain(
        f"edgecase:{FINGERPRINT}", tenant="clinic-a", source="loopline://test/detector", **kwargs
    )  # type: ignore[arg-type]
    event = chain.append(
        EdgeCaseDetected(
            fingerprint=FINGERPRINT,
            rule="escalation",
            severity="low",
            summary="escalated",
            source_episode_id=episode_id,
        )
    )
    archive.append([ArchiveRecord.of(event)])
    return event.hash


async def wait_for_stage(store: DraftStore, stage: str, timeout_s: float = 90) -> PromotionStatus:
    for _ in range(int(timeout_s * 10)):
        found = [s for s in store.statuses() if s.fingerprint == FINGERPRINT]
        if found and found[0].stage == stage:
            return found[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"the promotion never reached {stage}; statuses: {store.statuses()}")


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(dev_server_existing_path=str(temporal_bin()), ip="127.0.0.1")
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.mark.integration
async def test_a_case_seen_twice_through_a_killed_worker_is_promoted_exactly_once(
    dev_server: WorkflowEnvironment, task_queue: str, tmp_path: Path
) -> None:
    address = dev_server.client.service_client.config.target_host
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    episode = record(TASK, redactor(tmp_path))
    archive.append([ArchiveRecord.of(event) for event in episode])
    tip = detected(archive, episode[0].episodeid, 0)
    store = DraftStore(tmp_path / "drafts")
    with worker(tmp_path, address, task_queue, "first") as first:
        status = await wait_for_stage(store, "awaiting_review")
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    detected(archive, episode[0].episodeid, 1, prevhash=tip)  # the detector reports the case again
    with worker(tmp_path, address, task_queue, "second"):
        client = await connect(address)
        outcome = await send_review(
            client, workflow_id_for(FINGERPRINT),
            ReviewDecision(decision="approve", reviewer="dana", spec_hash=status.spec_hash),
        )  # fmt: skip
        assert outcome.stage == "published"
        await asyncio.sleep(1.5)  # the restarted starter polls the archive again meanwhile
    registry = TaskSetRegistry(tmp_path / "tasksets")
    assert registry.versions("rcm-promoted") == [1]
    assert len(registry.load("rcm-promoted").tasks) == 1
    assert [s.stage for s in store.statuses()] == ["published"]
