"""The demo's promotion stage on the Temporal dev server: the archive's edge cases become drafts,
and the simulated reviewer (labelled as such) approves those whose suggestion matches the
sandbox's ground truth, which are published; the rest are rejected, nothing else published."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from rich.console import Console
from temporalio.testing import WorkflowEnvironment

from adapters.rcm import seed_world
from bridge.store import ArchiveRecord, SqlEventArchive
from envs.credit.demo import queue_world, work_queue
from envs.credit.domain import DOMAIN as CREDIT
from envs.rcm.domain import DOMAIN
from envs.rcm.tasks import work_item_for
from envs.tasksets import TaskSetRegistry
from loopline.demo.promotion import SIMULATED, promotion_stage
from loopline.stack.binaries import temporal_bin
from schemas.chain import EpisodeChain
from schemas.events import EdgeCaseDetected
from schemas.tasks import Provenance, Task, VerifierSpec
from tests.workflows.episodes import record, redactor

CLAIMS = ("CLM-1013", "CLM-1016", "CLM-1020")


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(dev_server_existing_path=str(temporal_bin()), ip="127.0.0.1")
    try:
        yield env
    finally:
        await env.shutdown()


def seed_task(claim_id: str) -> Task:
    world = seed_world()
    return Task(
        task_id=claim_id, domain="rcm", work_item=work_item_for(world, claim_id), initial_world=world.snapshot(),
        tools=tuple(s.name for s in DOMAIN.tool_specs()), gold_solution=(), verifier=VerifierSpec(verifier="rcm.v2"),
        provenance=Provenance(kind="synthetic"),
    )  # fmt: skip


@pytest.mark.integration
async def test_the_simulated_reviewer_publishes_what_matches_the_ground_truth(
    dev_server: WorkflowEnvironment, tmp_path: Path
) -> None:
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    redact = redactor(tmp_path)
    for index, claim_id in enumerate(CLAIMS):
        episode = record(seed_task(claim_id), redact)
        archive.append([ArchiveRecord.of(e) for e in episode])
        fingerprint = f"{index:02d}" + "c" * 30
        detected = EpisodeChain(
            f"edgecase:{fingerprint}", tenant="acme", source="loopline://test/detector"
        ).append(
            EdgeCaseDetected(
                fingerprint=fingerprint,
                rule="escalation",
                severity="low",
                summary="demo",
                source_episode_id=episode[0].episodeid,
            )
        )
        archive.append([ArchiveRecord.of(detected)])
    out = io.StringIO()
    console = Console(file=out, width=200)
    summary = await _stage(dev_server, tmp_path, seed_world(), "rcm", console)
    printed = out.getvalue()
    assert summary.drafts == len(CLAIMS)
    assert summary.published, printed
    assert summary.rejected + len(summary.published) == len(CLAIMS)
    lines = [line for line in printed.splitlines() if "approved" in line or "rejected" in line]
    assert lines and all("[simulated reviewer]" in line for line in lines)
    tasks = TaskSetRegistry(tmp_path / "demo" / "tasksets").load("rcm-promoted").tasks
    assert sorted(t.task_id for t in tasks) == sorted(summary.published)
    assert all(t.provenance.reviewer == SIMULATED for t in tasks)
    # a second demo on the same stack: nothing new, nothing lost
    again = await _stage(dev_server, tmp_path, seed_world(), "rcm")
    assert (again.drafts, sorted(again.published)) == (summary.drafts, sorted(summary.published))
    kept = TaskSetRegistry(tmp_path / "demo" / "tasksets").load("rcm-promoted").tasks
    assert sorted(t.task_id for t in kept) == sorted(t.task_id for t in tasks)
    # then `make demo DOMAIN=credit` in the same state: rcm's drafts are not its own
    other = await _stage(dev_server, tmp_path, queue_world(), "credit")
    assert (other.drafts, other.published, other.task_set) == (0, [], None)


async def _stage(  # type: ignore[no-untyped-def]
    dev_server: WorkflowEnvironment, tmp_path: Path, truth, domain: str, console: Console | None = None
):
    """The demo's promotion stage over the test's archive and stack, in a thread."""
    return await _in_thread(
        lambda: promotion_stage(
            console or Console(file=io.StringIO()),
            temporal_address=dev_server.client.service_client.config.target_host,
            db_url=f"sqlite:///{tmp_path / 'archive.db'}",
            workdir=tmp_path / "demo",
            truth=truth,
            domain=domain,
            timeout_s=120,
        )
    )


async def _in_thread(job):  # type: ignore[no-untyped-def]
    import asyncio

    return await asyncio.get_running_loop().run_in_executor(None, job)


@pytest.mark.integration
async def test_the_credit_demos_edge_cases_are_promoted_to_credit_promoted(
    dev_server: WorkflowEnvironment, tmp_path: Path
) -> None:
    world = queue_world()
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    redact = redactor(tmp_path)
    items = work_queue(world)[-3:]  # edge families: the last packages of the queue
    for index, item in enumerate(items):
        task = Task(
            task_id=item.item_id, domain="credit", work_item=item, initial_world=world.snapshot(),
            tools=tuple(s.name for s in CREDIT.tool_specs()), gold_solution=(),
            verifier=VerifierSpec(verifier="credit.v1"), provenance=Provenance(kind="synthetic"),
        )  # fmt: skip
        episode = record(task, redact)
        archive.append([ArchiveRecord.of(e) for e in episode])
        fingerprint = f"{index:02d}" + "d" * 30
        detected = EpisodeChain(
            f"edgecase:{fingerprint}", tenant="fund-a", source="loopline://test/detector"
        ).append(
            EdgeCaseDetected(
                fingerprint=fingerprint, rule="unknown_vocabulary", severity="low", summary="demo",
                source_episode_id=episode[0].episodeid,
            )
        )  # fmt: skip
        archive.append([ArchiveRecord.of(detected)])
    out = io.StringIO()
    summary = await _stage(dev_server, tmp_path, world, "credit", Console(file=out, width=200))
    assert summary.drafts == len(items) and len(summary.published) == len(items), out.getvalue()
    assert summary.task_set == "credit-promoted"
    tasks = TaskSetRegistry(tmp_path / "demo" / "tasksets").load("credit-promoted").tasks
    assert sorted(t.task_id for t in tasks) == sorted(summary.published)
    assert all(t.domain == "credit" and t.provenance.reviewer == SIMULATED for t in tasks)
