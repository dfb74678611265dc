"""Benchmark of the projector: events/s into the SQL archive + projections, per faust worker.

    .venv/bin/python bench/projector.py [--episodes 3000] [--db-url URL] [--bootstrap-servers HOST:PORT]

Produces `--episodes` ten-event episodes to a fresh topic, then projects them twice into fresh
databases with the same per-batch work (`bridge.streams.Projector`: decode, verify each event's
hash, archive + project in one transaction per batch):
(a) one `loopline streams worker` process (faust, projector agent only), as deployed;
(b) a plain confluent-kafka consumer loop in this process, as the baseline.
Throughput is measured from the archive's own commit times (`archived_at`): events committed after
the first batch, over the time from the first to the last commit, so start-up and group joins are
not counted. Without --bootstrap-servers it starts its own Tansu broker (memory storage).
Prints a table and writes bench/results/projector.json. Target: >= 5,000 events/s per worker.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
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

import confluent_kafka
import sqlalchemy as sa
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic
from rich.console import Console
from rich.table import Table

from bridge.store import SqlEventArchive
from bridge.store.tables import ARCHIVE_TABLE, PROJECTION_TABLES
from bridge.streams.deadletter import RawMessage
from bridge.streams.decode import header_list
from bridge.streams.projector import Projector
from loopline.stack.scratch import scratch_broker
from loopline.streams.event_keys import embedded_signing_key
from schemas import EpisodeChain, ToolCall, WorkItem, to_kafka
from schemas.codec import to_structured
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    ModelResponded,
    PolicyRef,
    ToolCalled,
    ToolFailed,
    ToolReturned,
)
from schemas.tools import SideEffect, ToolError

RESULTS = Path(__file__).parent / "results" / "projector.json"
BENCH_SOURCE = "loopline://bridge/bench"
"""A bridge source (`bridge/audit/producer_scopes.json`): the bench stands in for a bridge."""
TARGET = 5000.0
console = Console()


def episode_events(i: int) -> list[Any]:
    """Ten events of a realistic episode: start, turns, a read, a failing write, a retry, the end."""
    chain = EpisodeChain(f"bench-{i}", tenant="bench", source=BENCH_SOURCE)
    item = WorkItem(
        domain="rcm", kind="denial", item_id=f"CLM-{i}", instructions="work it", payload={"carc": "16"}
    )
    data: list[Any] = [
        EpisodeStarted(work_item=item, policy=PolicyRef(model="policy"), tools=("get_claim", "submit_claim"),
                       tools_hash="t", system_prompt_hash="p", max_steps=10, max_seconds=60),
        ModelResponded(turn=0, content="look up the claim"),
        ToolCalled(call=ToolCall(call_id="c1", name="get_claim", arguments={"claim_id": f"CLM-{i}"}), side_effect=SideEffect.READ),
        ToolReturned(call_id="c1", name="get_claim", result={"claim_id": f"CLM-{i}", "carc": "16", "rarc": ["M51"], "lines": [{"cpt": "99213", "charge": 120.5}]}, latency_ms=42.0),
        ModelResponded(turn=1, content="resubmit"),
        ToolCalled(call=ToolCall(call_id="c2", name="submit_claim", arguments={"claim_id": f"CLM-{i}", "frequency": "7"}), side_effect=SideEffect.WRITE),
        ToolFailed(call_id="c2", name="submit_claim", error=ToolError(kind="http", message="bad gateway", status_code=502), latency_ms=80.0),
        ToolCalled(call=ToolCall(call_id="c3", name="submit_claim", arguments={"claim_id": f"CLM-{i}", "frequency": "7"}), side_effect=SideEffect.WRITE),
        ToolReturned(call_id="c3", name="submit_claim", result={"accepted": True}, latency_ms=95.0),
        EpisodeEnded(status="completed", steps=2, tool_calls=3, duration_ms=900.0),
    ]  # fmt: skip
    return [chain.append(d) for d in data]


@contextmanager
def broker(bootstrap: str | None, folder: Path) -> Iterator[str]:
    if bootstrap:
        yield bootstrap
        return
    with scratch_broker(folder) as scratch:
        yield scratch.bootstrap_servers


def produce(bootstrap: str, topic: str, episodes: int, partitions: int) -> int:
    admin = AdminClient({"bootstrap.servers": bootstrap, "broker.address.family": "v4"})
    for future in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        future.result(15)
    producer = confluent_kafka.Producer(
        {"bootstrap.servers": bootstrap, "broker.address.family": "v4", "linger.ms": 20}
    )
    # Signed like the bridge's relay does, with a key whose public half the worker finds.
    key = embedded_signing_key("bridge", BENCH_SOURCE)
    count = 0
    for i in range(episodes):
        for event in episode_events(i):
            record = to_kafka(event)
            headers: list[tuple[str, str | bytes | None]] = [
                *record.headers,
                *key.headers_for(to_structured(event)),
            ]
            producer.produce(topic, key=record.key, value=record.value, headers=headers)
            count += 1
        producer.poll(0)
    assert producer.flush(60) == 0
    return count


def commit_rate(archive: SqlEventArchive) -> dict[str, Any]:
    """Events committed after the first batch, over first-to-last commit time."""
    a = ARCHIVE_TABLE
    with archive.engine.connect() as conn:
        first, last = conn.execute(
            sa.select(sa.func.min(a.c.archived_at), sa.func.max(a.c.archived_at))
        ).one()
        after_first = conn.execute(sa.select(sa.func.count()).where(a.c.archived_at > first)).scalar_one()
    if isinstance(first, str):  # SQLite without type affinity for DateTime in aggregates
        first, last = datetime.fromisoformat(first), datetime.fromisoformat(last)
    span = (last - first).total_seconds()
    return {
        "events_after_first_batch": after_first,
        "seconds": round(span, 3),
        "events_per_s": round(after_first / span, 1) if span else None,
    }


def wait_for(
    archive: SqlEventArchive, total: int, timeout_s: float, proc: subprocess.Popen[bytes] | None = None
) -> None:
    deadline = time.monotonic() + timeout_s
    while archive.count() < total:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"the worker exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out: {archive.count()} of {total} archived")
        time.sleep(0.25)


def run_faust(
    bootstrap: str, topic: str, db_url: str, total: int, batch: int, folder: Path, *, offload: bool
) -> dict[str, Any]:
    archive = fresh_archive(db_url)
    env = {
        **os.environ,
        "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": bootstrap,
        "LOOPLINE_STREAMS_BATCH_SIZE": str(batch),
        "LOOPLINE_STREAMS_OFFLOAD": "true" if offload else "false",
    }
    argv = [sys.executable, "-c", "from loopline.cli import main; main()", "streams", "worker", "--no-detector",
            "--db-url", db_url, "--events-topic", topic, "--dlq-topic", topic + ".dlq",
            "--app-id", f"bench-faust-{uuid.uuid4().hex[:6]}", "--loglevel", "warning"]  # fmt: skip
    started = time.perf_counter()
    with (folder / "worker.log").open("ab") as log:
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(archive, total, 600, proc)
    finally:
        proc.terminate()
        proc.wait(30)
    return {**commit_rate(archive), "wall_seconds_including_startup": round(time.perf_counter() - started, 2)}


def run_confluent(bootstrap: str, topic: str, db_url: str, total: int, batch: int) -> dict[str, Any]:
    archive = fresh_archive(db_url)
    projector = Projector(archive)
    consumer = confluent_kafka.Consumer({
        "bootstrap.servers": bootstrap, "broker.address.family": "v4", "group.id": f"bench-plain-{uuid.uuid4().hex[:6]}",
        "auto.offset.reset": "earliest", "enable.auto.commit": False, "session.timeout.ms": 6000,
    })  # fmt: skip
    consumer.subscribe([topic])
    started, done = time.perf_counter(), 0
    try:
        while done < total:
            messages = [m for m in consumer.consume(batch, timeout=0.2) if m.error() is None]
            if not messages:
                continue
            raw = [
                RawMessage(
                    topic, m.partition() or 0, m.offset() or 0, m.key(), m.value(), header_list(m.headers())
                )
                for m in messages
            ]
            done += projector.handle(raw).appended.inserted
            consumer.commit(asynchronous=True)
    finally:
        consumer.close()
    return {**commit_rate(archive), "wall_seconds_including_startup": round(time.perf_counter() - started, 2)}


def fresh_archive(db_url: str) -> SqlEventArchive:
    archive = SqlEventArchive(db_url)
    archive.create_schema()
    with archive.engine.begin() as conn:  # a reused Postgres database: start empty
        for table in (ARCHIVE_TABLE, *PROJECTION_TABLES):
            conn.execute(table.delete())
    return archive


def render(results: dict[str, Any]) -> None:
    title = (
        f"projector throughput ({results['events']} events, {results['db']}, batch {results['batch_size']})"
    )
    table = Table(title=title)
    for column in ("consumer", "median events/s", "rounds (events/s)", "target"):
        table.add_column(column)
    for mode in MODES:
        rounds = ", ".join(str(r[mode]["events_per_s"]) for r in results["rounds"])
        target = f">= {TARGET:.0f}" if mode == "faust_worker" else ""
        table.add_row(mode, str(results["median_events_per_s"][mode]), rounds, target)
    console.print(table)


MODES = ("faust_worker", "faust_worker_work_in_thread", "plain_confluent")


def run_once(
    bootstrap: str, topic: str, total: int, batch: int, folder: Path, db_url: str | None
) -> dict[str, Any]:
    """One run of each mode, each into a fresh database."""

    def url(name: str) -> str:
        return db_url or f"sqlite:///{folder}/{name}-{uuid.uuid4().hex[:6]}.db"

    return {
        "faust_worker": run_faust(bootstrap, topic, url("faust"), total, batch, folder, offload=True),
        "faust_worker_work_in_thread": run_faust(
            bootstrap, topic, url("thread"), total, batch, folder, offload=False
        ),
        "plain_confluent": run_confluent(bootstrap, topic, url("plain"), total, batch),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--episodes", type=int, default=3000, help="Ten-event episodes to produce.")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument(
        "--repeat", type=int, default=3, help="Rounds of the three modes; medians are reported."
    )
    parser.add_argument(
        "--db-url", default=None, help="Archive URL (default: SQLite files in a temp folder)."
    )
    parser.add_argument("--bootstrap-servers", default=None)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-projector-") as tmp:
        folder = Path(tmp)
        with broker(args.bootstrap_servers, folder) as bootstrap:
            topic = f"bench-projector-{uuid.uuid4().hex[:8]}"
            total = produce(bootstrap, topic, args.episodes, args.partitions)
            console.print(f"produced {total} events to {topic}")
            for n in range(args.repeat):
                rounds.append(run_once(bootstrap, topic, total, args.batch_size, folder, args.db_url))
                console.print(
                    f"round {n + 1}: " + ", ".join(f"{m} {rounds[-1][m]['events_per_s']}/s" for m in MODES)
                )
    medians = {
        m: {
            **rounds[0][m],
            "events_per_s": round(statistics.median(r[m]["events_per_s"] or 0 for r in rounds), 1),
        }
        for m in MODES
    }
    results = {
        "benchmark": "projector", "events": total, "partitions": args.partitions, "batch_size": args.batch_size,
        "db": "postgres" if args.db_url and args.db_url.startswith("postgresql") else "sqlite",
        "broker": "external" if args.bootstrap_servers else "tansu memory://",
        "median_events_per_s": {m: medians[m]["events_per_s"] for m in MODES},
        "target_events_per_s": TARGET,
        "meets_target": medians["faust_worker"]["events_per_s"] >= TARGET,
        "rounds": rounds,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                    "load_average_at_end": os.getloadavg()},
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python bench/projector.py " + " ".join(sys.argv[1:]),
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    render(results)


if __name__ == "__main__":
    main()
