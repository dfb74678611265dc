"""Benchmark: how throughput grows with processes, for docs/scaling.md, as ratios to one process.

    .venv/bin/python bench/scaling.py [--episodes 1500] [--relay-events 20000] [--cases 8]

1. Projector: `--episodes` ten-event episodes on a 4-partition topic, projected by 1, 2 and 4
   `loopline streams worker --no-detector` processes in one consumer group into one Postgres
   archive (a throwaway cluster, as production shares one database). The workers join first (each
   `/readyz` answers 200: it holds partitions), then the events are produced; events/s is the
   archive's own commit span (bench/projector.py's `commit_rate`).
2. Relay: 1 and 2 bridge-like processes (bench/capture_worker.py `throughput`), each relaying its
   own outbox's backlog of `--relay-events` to the topic, started together; events/s is all the
   events over the span from the first start to the last finish.
3. Promotion: `--cases` edge cases archived at once, promoted to drafts awaiting review by 1 and 2
   `loopline workflows worker` processes on one task queue (one of them runs the starter), on a
   Temporal dev server; drafts/s over the span from the archiving to the last draft.
Starts its own Tansu broker (memory storage). Each configuration runs once: on a shared 2-core
machine the figures are noisy, and ratios on 2 cores say little about 16. Writes
bench/results/scaling.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import projector  # noqa: E402  (bench/projector.py: events, producing, commit rate)

from loopline.kafka.topics import ensure_topics  # noqa: E402
from loopline.stack.postgres import throwaway_cluster  # noqa: E402
from loopline.stack.scratch import scratch_broker  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "scaling.json"
LOOPLINE = [sys.executable, "-c", "from loopline.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def processes(
    argvs: list[list[str]], envs: list[dict[str, str]], log: Path
) -> Iterator[list[subprocess.Popen[bytes]]]:
    started = []
    with log.open("ab") as out:
        try:
            for argv, env in zip(argvs, envs, strict=True):
                started.append(
                    subprocess.Popen(argv, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT)
                )
            yield started
        finally:
            for proc in started:
                proc.terminate()
            for proc in started:
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()


def wait(check: Any, what: str, procs: list[subprocess.Popen[bytes]], timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if any(p.poll() is not None for p in procs):
            raise SystemExit(f"a process exited waiting for {what}")
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.1)


def ready(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def projector_run(bootstrap: str, db_url: str, workers: int, episodes: int, folder: Path) -> dict[str, Any]:
    topic, group = f"bench-scaling-{uuid.uuid4().hex[:8]}", f"bench-scaling-{uuid.uuid4().hex[:6]}"
    ensure_topics({"bootstrap.servers": bootstrap, "broker.address.family": "v4"}, [topic + ".dlq"])
    archive = projector.fresh_archive(db_url)
    ports = [free_port() for _ in range(workers)]
    argvs = [[*LOOPLINE, "streams", "worker", "--no-detector", "--db-url", db_url, "--events-topic", topic,
              "--dlq-topic", topic + ".dlq", "--app-id", group, "--web-port", str(port), "--loglevel", "warning"]
             for port in ports]  # fmt: skip
    env = {"LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": bootstrap, "LOOPLINE_STREAMS_BATCH_SIZE": "500"}
    # the topic exists before the workers subscribe, with no events yet
    admin_config = {"bootstrap.servers": bootstrap, "broker.address.family": "v4"}
    ensure_topics(admin_config, [topic], partitions=4)
    with processes(argvs, [env] * workers, folder / "streams.log") as procs:
        wait(lambda: all(ready(p) for p in ports), "every worker to hold partitions", procs)
        time.sleep(2 * 6.0)  # the last join's rebalance settles (session timeout 6 s on Tansu)
        wait(lambda: all(ready(p) for p in ports), "a settled group", procs)
        total = produce_existing(bootstrap, topic, episodes)
        wait(lambda: archive.count() >= total, "every event archived", procs, timeout_s=900)
    rate = projector.commit_rate(archive)
    archive.engine.dispose()
    return {"workers": workers, "events": total, **rate}


def produce_existing(bootstrap: str, topic: str, episodes: int) -> int:
    """bench/projector.py's producer, onto a topic that exists already."""
    import confluent_kafka

    from loopline.streams.event_keys import embedded_signing_key
    from schemas import to_kafka
    from schemas.codec import to_structured

    producer = confluent_kafka.Producer(
        {"bootstrap.servers": bootstrap, "broker.address.family": "v4", "linger.ms": 20}
    )
    key = embedded_signing_key("bridge", projector.BENCH_SOURCE)
    count = 0
    for i in range(episodes):
        for event in projector.episode_events(i):
            record = to_kafka(event)
            headers = [*record.headers, *key.headers_for(to_structured(event))]
            producer.produce(topic, key=record.key, value=record.value, headers=headers)
            count += 1
        producer.poll(0)
    assert producer.flush(60) == 0
    return count


def relay_run(kafka: dict[str, Any], processes_n: int, events: int, folder: Path) -> dict[str, Any]:
    topic = f"bench-relay-{uuid.uuid4().hex[:8]}"
    ensure_topics(kafka, [topic], partitions=4)
    start_at = time.time() + 8 + events / 10_000  # after every process has written its backlog
    argvs = [[sys.executable, str(ROOT / "bench" / "capture_worker.py"), "throughput",
              json.dumps({"folder": str(folder / f"relay-{n}-{processes_n}"), "events": events, "topic": topic,
                          "kafka": kafka, "start_at": start_at})] for n in range(processes_n)]  # fmt: skip
    env = {"PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen(a, env={**os.environ, **env}, stdout=subprocess.PIPE, text=True) for a in argvs]
    answers = []
    for proc in procs:
        out, _ = proc.communicate(timeout=900)
        if proc.returncode != 0:
            raise SystemExit("a relay process failed")
        answers.append(json.loads(out.strip().splitlines()[-1]))
    late = max(a["started_at"] for a in answers) - start_at
    span = max(a["finished_at"] for a in answers) - min(a["started_at"] for a in answers)
    return {"processes": processes_n, "events": events * processes_n, "seconds": round(span, 3),
            "events_per_s": round(events * processes_n / span, 1), "latest_start_after_barrier_s": round(late, 3),
            "per_process_events_per_s": [round(a["relay_events_per_s"], 1) for a in answers]}  # fmt: skip


async def promotion_run(workers: int, cases: int, folder: Path) -> dict[str, Any]:
    from temporalio.testing import WorkflowEnvironment

    from adapters.drafting.store import DraftStore
    from bridge.store import ArchiveRecord, SqlEventArchive
    from envs.rcm import generate_base
    from loopline.demo.episodes import record, redactor
    from loopline.stack.binaries import temporal_bin
    from schemas.chain import EpisodeChain
    from schemas.events import EdgeCaseDetected

    env = await WorkflowEnvironment.start_local(dev_server_existing_path=str(temporal_bin()), ip="127.0.0.1")
    queue = f"bench-scaling-{uuid.uuid4().hex[:6]}"
    db_url = f"sqlite:///{folder / 'archive.db'}"
    archive = SqlEventArchive(db_url)
    archive.create_schema()
    redact = redactor(folder)
    episodes = [record(task, redact) for task in generate_base(seed=0, per_carc=1)[:cases]]
    for episode in episodes:
        archive.append([ArchiveRecord.of(e) for e in episode])
    ports = [free_port() for _ in range(workers)]
    settings_env = {
        "LOOPLINE_TEMPORAL_ADDRESS": env.client.service_client.config.target_host, "LOOPLINE_TASK_QUEUE": queue,
        "LOOPLINE_DB_URL": db_url, "LOOPLINE_DRAFTS_DIR": str(folder / "drafts"),
        "LOOPLINE_TASKSETS_ROOT": str(folder / "tasksets"),
    }  # fmt: skip
    argvs = [[*LOOPLINE, "workflows", "worker", "--no-publish-events", *(["--with-starter"] if n == 0 else [])]
             for n in range(workers)]  # fmt: skip
    envs = [{**settings_env, "LOOPLINE_HEALTH_PORT": str(port)} for port in ports]
    store = DraftStore(folder / "drafts")
    try:
        with processes(argvs, envs, folder / "workflows.log") as procs:
            wait(lambda: all(ready(p) for p in ports), "every worker polling", procs)
            started = time.perf_counter()
            for index, episode in enumerate(episodes):
                fingerprint = f"{workers:04d}{index:04d}" + "c" * 32
                chain = EpisodeChain(
                    f"edgecase:{fingerprint}", tenant="bench", source="loopline://bench/detector"
                )
                event = chain.append(EdgeCaseDetected(fingerprint=fingerprint, rule="escalation", severity="low",
                                                      summary="bench", source_episode_id=episode[0].episodeid))  # fmt: skip
                archive.append([ArchiveRecord.of(event)])

            def drafted() -> bool:
                done = [s for s in store.statuses() if s.stage in ("awaiting_review", "refused", "duplicate")]
                return len(done) >= cases

            wait(drafted, "every draft", procs, timeout_s=900)
            span = time.perf_counter() - started
    finally:
        await env.shutdown()
    return {
        "workers": workers,
        "cases": cases,
        "seconds": round(span, 3),
        "drafts_per_s": round(cases / span, 3),
    }


def ratios(rows: list[dict[str, Any]], key: str) -> list[float]:
    return [round(r[key] / rows[0][key], 2) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--episodes", type=int, default=1500)
    parser.add_argument("--relay-events", type=int, default=20_000)
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--only", choices=["projector", "relay", "promotion"], action="append")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    only = set(args.only or ["projector", "relay", "promotion"])
    results: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() and args.only else {}
    with (
        tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp,
        scratch_broker(Path(tmp) / "broker") as broker,
    ):
        folder = Path(tmp)
        if "projector" in only:
            with throwaway_cluster() as cluster:
                rows = []
                for workers in (1, 2, 4):
                    with cluster.database() as url:
                        rows.append(
                            projector_run(broker.bootstrap_servers, url, workers, args.episodes, folder)
                        )
                    print(f"projector, {workers} worker(s): {rows[-1]['events_per_s']} events/s", flush=True)
            results["projector"] = {"rows": rows, "ratio_to_one": ratios(rows, "events_per_s"), "partitions": 4,
                                    "archive": "postgres (throwaway cluster)"}  # fmt: skip
        if "relay" in only:
            rows = [relay_run(broker.config(), n, args.relay_events, folder) for n in (1, 2)]
            for row in rows:
                print(f"relay, {row['processes']} process(es): {row['events_per_s']} events/s", flush=True)
            results["relay"] = {"rows": rows, "ratio_to_one": ratios(rows, "events_per_s")}
        if "promotion" in only:
            rows = []
            for workers in (1, 2):
                (folder / f"promotion-{workers}").mkdir()
                rows.append(asyncio.run(promotion_run(workers, args.cases, folder / f"promotion-{workers}")))
                print(f"promotion, {workers} worker(s): {rows[-1]['drafts_per_s']} drafts/s", flush=True)
            results["promotion"] = {"rows": rows, "ratio_to_one": ratios(rows, "drafts_per_s")}
    results["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                          "load_average_at_end": os.getloadavg()}  # fmt: skip
    results["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    results["command"] = "python bench/scaling.py " + " ".join(sys.argv[1:])
    results["note"] = (
        "each configuration once, on a shared 2-core machine: noisy; ratios on 2 cores say little about 16"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps({k: v.get("ratio_to_one") for k, v in results.items() if isinstance(v, dict)}))


if __name__ == "__main__":
    main()
