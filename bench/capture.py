"""Benchmark of bridge.capture: this checkout's capture against an earlier commit's, in one run.

    .venv/bin/python bench/capture.py [--baseline dbf51cd] [--rounds 5] [--calls 4000] [--paced-calls 1000]

What recording costs the agent per tool call (tool.called + tool.returned through `EpisodeRecorder`
into `SqliteOutbox`, PHI in the arguments and the result, a relay process producing to a broker),
back to back and paced at 1,000 calls/s (the thread sleeps between calls, as an agent waits on its
model and the live API): median of the round medians, p99 and p99.9 over every call. The cost of a
call is its time minus the median of the same call without capture in the same round. Then relay
throughput: events/s through a relay thread from a 50,000-event backlog until every report is in.

Every measurement runs in a fresh process (`bench/capture_worker.py`) with `PYTHONPATH` set to this
checkout or to `--baseline` extracted with `git archive`, and the configurations take turns round by
round, so a slow phase of a shared machine lands on both versions: compare them as ratios. `power`
durability is measured for this checkout only. Starts its own Tansu broker (memory storage) unless
`--bootstrap-servers` is given. Prints a table and writes bench/results/capture.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import confluent_kafka
from rich.console import Console
from rich.table import Table

from loopline.kafka.topics import ensure_topics
from loopline.stack.scratch import scratch_broker

REPO = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("capture_worker.py")
RESULTS = Path(__file__).parent / "results" / "capture.json"
BASELINE = "dbf51cd"
"""The commit measured against by default: capture with its journal, before this design."""
PACED_RATE = 1_000.0
"""Tool calls per second of the paced runs: one process serving, say, 100 agents at 10 calls/s."""
TARGETS = {"paced": {"median": 0.25, "p99": 1.0, "p999": 5.0}, "relay_events_per_s": 20_000}
console = Console(width=150)


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def extract(rev: str, into: Path) -> Path:
    """The `bridge` and `schemas` packages of commit `rev`, in a folder of their own."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "bridge", "schemas"],
                             check=True, capture_output=True).stdout  # fmt: skip
    into.mkdir(parents=True)
    with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def run_worker(tree: Path, kind: str, options: dict[str, Any]) -> dict[str, Any]:
    """One measurement in a fresh process importing `bridge` from `tree` (checked, not assumed)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, str(WORKER), kind, json.dumps(options)],
                          capture_output=True, text=True, env=env, timeout=900)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"worker failed ({kind}, {tree}):\n{done.stderr[-3000:]}")
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(answer["bridge"]).is_relative_to(tree):
        raise RuntimeError(f"the worker imported {answer['bridge']}, not the bridge in {tree}")
    return answer


def summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    costs = [c for r in rounds for c in r["cost_s"]]
    medians = [statistics.median(r["cost_s"]) * 1e3 for r in rounds]
    return {"calls": len(costs), "rounds": len(rounds), "median_ms": statistics.median(medians),
            "round_medians_ms": medians, "p99_ms": pct(costs, 0.99) * 1e3, "p999_ms": pct(costs, 0.999) * 1e3,
            "mean_ms": statistics.fmean(costs) * 1e3,
            "tool_median_ms": statistics.median(r["tool_median_s"] for r in rounds) * 1e3}  # fmt: skip


@contextmanager
def broker(bootstrap: str | None, folder: Path) -> Iterator[dict[str, Any]]:
    if bootstrap:
        yield {"bootstrap.servers": bootstrap}
        return
    with scratch_broker(folder) as scratch:
        yield scratch.config()


def render(results: dict[str, Any]) -> None:
    table = Table(
        title=f"bridge.capture: this checkout against {results['baseline']} (one run, same machine)"
    )
    for column in ("capture cost per tool call", "path", "median", "p99", "p99.9", "new / current (median)"):
        table.add_column(column)
    by_key = {(r["path"], r["durability"], r["pace"]): r for r in results["latency"]}
    for row in results["latency"]:
        other = by_key.get(("current", row["durability"], row["pace"]))
        ratio = f"{row['median_ms'] / other['median_ms']:.2f}" if row["path"] == "new" and other else ""
        table.add_row(f"{row['durability']}, relay process producing, {row['pace']}", row["path"],
                      f"{row['median_ms']:.3f} ms", f"{row['p99_ms']:.3f} ms", f"{row['p999_ms']:.3f} ms",
                      ratio)  # fmt: skip
    for path, value in results["throughput"].items():
        table.add_row("relay thread from a 50,000-event backlog", path, f"{value['median']:,.0f} events/s",
                      "", "", " ".join(f"{v:,.0f}" for v in value["rounds"]))  # fmt: skip
    console.print(table)
    console.print(f"targets (new, paced): {TARGETS}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", default=BASELINE, help="commit to measure against")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=4000, help="back-to-back calls per round")
    parser.add_argument("--paced-calls", type=int, default=1000, help="paced calls per round")
    parser.add_argument("--events", type=int, default=50_000, help="backlog of the relay throughput runs")
    parser.add_argument("--bootstrap-servers", help="use this broker instead of starting Tansu")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, broker(args.bootstrap_servers, Path(tmp) / "broker") as kafka:
        folder = Path(tmp)
        trees = {"new": REPO, "current": extract(args.baseline, folder / "current")}
        configurations = [(path, "process", pace) for pace in ("back to back", "1,000 calls/s")
                          for path in ("new", "current")] + [("new", "power", "back to back")]  # fmt: skip
        collected: dict[tuple[str, str, str], list[dict[str, Any]]] = {c: [] for c in configurations}
        throughput: dict[str, list[float]] = {path: [] for path in trees}
        for index in range(args.rounds):  # round-robin: a slow phase of the machine lands on every one
            console.print(f"round {index + 1} of {args.rounds}")
            for path, durability, pace in configurations:
                topic = f"bench-capture-{uuid.uuid4().hex[:8]}"
                ensure_topics(kafka, [topic])
                paced = pace != "back to back"
                calls = args.paced_calls if paced or durability == "power" else args.calls
                options = {"folder": str(folder / f"{path}-{durability}-{paced}-{index}"), "calls": calls,
                           "rate": PACED_RATE if paced else None, "relay": "process", "durability": durability,
                           "topic": topic, "kafka": kafka}  # fmt: skip
                collected[(path, durability, pace)].append(run_worker(trees[path], "latency", options))
            if index < 2:
                for path, tree in trees.items():
                    topic = f"bench-relay-{uuid.uuid4().hex[:8]}"
                    ensure_topics(kafka, [topic])
                    options = {"folder": str(folder / f"relay-{path}-{index}"), "events": args.events,
                               "topic": topic, "kafka": kafka}  # fmt: skip
                    throughput[path].append(run_worker(tree, "throughput", options)["relay_events_per_s"])
        results: dict[str, Any] = {
            "baseline": args.baseline,
            "latency": [{"path": path, "durability": durability, "pace": pace, **summary(rounds)}
                        for (path, durability, pace), rounds in collected.items()],
            "throughput": {path: {"median": statistics.median(v), "rounds": v} for path, v in throughput.items()},
            "targets": TARGETS,
        }  # fmt: skip
    results["machine"] = {"python": sys.version.split()[0], "platform": platform.platform(),
                          "cpus": os.cpu_count(), "sqlite": sqlite3.sqlite_version,
                          "librdkafka": confluent_kafka.libversion()[0], "argv": sys.argv[1:],
                          "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip
    render(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
