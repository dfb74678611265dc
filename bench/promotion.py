"""Benchmark: detection-to-draft and approval-to-published latency of edge-case promotion.

    .venv/bin/python bench/promotion.py [--cases 12] [--seed 0]

On a Temporal dev server (the embedded stack's binary) with an SQLite archive, one worker and the
edge-case starter in this process (as `loopline workflows worker --with-starter` runs them):
`--cases` rcm episodes are recorded through the bridge runtime (PHI tokenised) and archived, then
for each an `edge_case.detected` is archived, as the detector does. Detection-to-draft is the time
from that event's archiving to the draft stored and waiting for review (the starter's poll, the
workflow's start, the draft activity: recording, rebuilding, replaying; the suggested spec).
Approval-to-published is the time the review update takes to come back `published` (the gates:
gold, nothing, every mutant and exploit; the task-set version; the event). Target: detection to
draft p95 ≤ 5 s. Writes bench/results/promotion.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from temporalio.testing import WorkflowEnvironment  # noqa: E402

from adapters.drafting.store import DraftStore  # noqa: E402
from bridge.store import ArchiveRecord, SqlEventArchive  # noqa: E402
from envs.rcm import generate_base  # noqa: E402
from loopline.demo.episodes import record, redactor  # noqa: E402
from loopline.stack.binaries import temporal_bin  # noqa: E402
from schemas.chain import EpisodeChain  # noqa: E402
from schemas.events import EdgeCaseDetected  # noqa: E402
from workflows.promotion.client import send_review  # noqa: E402
from workflows.promotion.models import ReviewDecision  # noqa: E402
from workflows.promotion.workflows import workflow_id_for  # noqa: E402
from workflows.settings import WorkflowsSettings  # noqa: E402
from workflows.worker import serve  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50_s": round(statistics.median(values), 3), "p95_s": round(pct(values, 0.95), 3),
            "max_s": round(max(values), 3)}  # fmt: skip


async def run(cases: int, seed: int, folder: Path) -> dict[str, Any]:
    env = await WorkflowEnvironment.start_local(dev_server_existing_path=str(temporal_bin()), ip="127.0.0.1")
    address = env.client.service_client.config.target_host
    settings = WorkflowsSettings(
        temporal_address=address, db_url=f"sqlite:///{folder / 'archive.db'}", drafts_dir=folder / "drafts",
        tasksets_root=folder / "tasksets", task_queue="bench-promotion",
    )  # fmt: skip
    archive = SqlEventArchive(settings.db_url)
    archive.create_schema()
    tasks = generate_base(seed=seed, per_carc=1)[:cases]
    redact = redactor(folder)
    episodes = [record(task, redact) for task in tasks]
    for episode in episodes:
        archive.append([ArchiveRecord.of(e) for e in episode])
    store = DraftStore(settings.drafts_dir)
    stop = asyncio.Event()
    worker = asyncio.create_task(serve(settings, publish=None, with_starter=True, stop=stop))
    await asyncio.sleep(2.0)  # the worker and starter are up before the first detection
    to_draft: list[float] = []
    to_published: list[float] = []
    from workflows.promotion.client import connect

    client = await connect(address)
    try:
        for index, episode in enumerate(episodes):
            fingerprint = f"{seed:04d}{index:04d}" + "b" * 32
            chain = EpisodeChain(
                f"edgecase:{fingerprint}", tenant="bench", source="loopline://bench/detector"
            )
            event = chain.append(
                EdgeCaseDetected(
                    fingerprint=fingerprint,
                    rule="escalation",
                    severity="low",
                    summary="bench",
                    source_episode_id=episode[0].episodeid,
                )
            )
            detected = time.perf_counter()
            archive.append([ArchiveRecord.of(event)])
            while True:
                status = next((s for s in store.statuses() if s.fingerprint == fingerprint), None)
                if status is not None and status.stage in ("awaiting_review", "refused", "duplicate"):
                    break
                await asyncio.sleep(0.02)
            to_draft.append(time.perf_counter() - detected)
            if status.stage != "awaiting_review" or status.spec_hash is None:
                continue
            approved = time.perf_counter()
            outcome = await send_review(client, workflow_id_for(fingerprint),
                                        ReviewDecision(decision="approve", reviewer="bench", spec_hash=status.spec_hash))  # fmt: skip
            if outcome.stage == "published":
                to_published.append(time.perf_counter() - approved)
            else:  # returned: a spec its own gates refuse; close the workflow
                await send_review(
                    client, workflow_id_for(fingerprint), ReviewDecision(decision="reject", reviewer="bench")
                )
    finally:
        stop.set()
        await worker
        await env.shutdown()
    return {
        "cases": cases,
        "detection_to_draft": summary(to_draft),
        "approval_to_published": summary(to_published) if to_published else None,
        "published": len(to_published),
        "target_detection_to_draft_p95_s": 5.0,
        "met": pct(to_draft, 0.95) <= 5.0,
        "loadavg": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "promotion.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(run(args.cases, args.seed, Path(tmp)))
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
