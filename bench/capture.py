"""Benchmark of bridge.capture: what recording costs the agent, and how fast events reach Kafka.

    .venv/bin/python bench/capture.py [--calls 20000] [--rounds 5] [--events 50000] [--bootstrap-servers HOST:PORT]

(a) agent-side cost per tool call: a cheap simulated tool timed with and without recording
    tool.called + tool.returned through EpisodeRecorder -> SqliteOutbox (PHI in the arguments and
    the result), in `process` durability with the relay off and on, and in `power` durability.
    The calls run in rounds, each in a fresh episode stream and outbox. A round's median is
    next to the median of a fixed slice of pure Python timed in the same round (the control):
    this shared 2-core machine has phases where everything runs about 1.5x slower, and the
    control shows them, and the configurations take turns round by round, so a slow phase lands on
    all of them. The headline median is the median of the round medians; p99 and p99.9
    are over every call of every round. Runs paced at 1,000 calls/s (the thread sleeps between
    calls, as an agent waits on its model) take their no-capture base at the same pace, and add
    a second control: the same pure Python timed straight after the same sleeps, which shows
    what waking up alone costs on this machine;
(b) throughput into the outbox (events/s) and through the relay until every delivery report is in;
(c) plain confluent-kafka producing the same messages (same bytes) with the same settings;
(d) the projector: one round of `bench/projector.py` on the same broker, one faust worker (as
    deployed) next to a plain confluent-kafka consumer doing the same SQL work (`--projector-episodes
    0` skips it; `bench/projector.py` runs three rounds and is the number the README gives).

Without --bootstrap-servers it starts its own Tansu broker (memory storage) via loopline.stack.
Prints a table and writes bench/results/capture.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import secrets
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import confluent_kafka
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from bridge.capture import (
    EpisodeRecorder,
    KafkaRelay,
    PhiKeys,
    PhiTokenizer,
    PhiVault,
    ProcessRelay,
    Redactor,
    SqliteOutbox,
)
from loopline.stack.scratch import scratch_broker
from schemas import EpisodeChain, KafkaRecord, SideEffect, ToolCall, ToolOutcome, ToolResult
from schemas.chain import SealedEvent
from schemas.events import ToolCalled
from schemas.phi import phi_field

RESULTS = Path(__file__).parent / "results" / "capture.json"
PACED_RATE = 1_000.0
"""Tool calls per second of the paced runs: one process serving, say, 100 agents at 10 calls/s."""
CALLS_PER_EPISODE = 20
console = Console()


class LookupArgs(BaseModel):
    claim_id: str
    member_id: str = phi_field(description="Payer member id.")


class LookupResult(BaseModel):
    claim_id: str
    status: str
    patient_name: str = phi_field(description="Name on the claim.")
    paid_amount: float


def lookup(arguments: dict[str, Any]) -> dict[str, Any]:
    """The simulated tool: a cheap pure function."""
    return {
        "claim_id": arguments["claim_id"],
        "status": "denied",
        "patient_name": "Ada Lovelace",
        "paid_amount": 0.0,
    }


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


CALM_MARGIN = 1.15
"""A round is calm when its control ran within 15 % of the run's quietest round: outside the slow
phases of this shared VM, in which everything, the control included, runs up to 1.7 times slower."""


def calm(round_costs: list[float], round_controls: list[float], quietest: float) -> list[float]:
    """The costs of the rounds whose control median was at most `CALM_MARGIN` times `quietest`."""
    return [cost for cost, control in zip(round_costs, round_controls, strict=True)
            if control <= quietest * CALM_MARGIN]  # fmt: skip


def control_work() -> int:
    """A fixed slice of pure Python (about as long as recording a call), for the control samples."""
    return sum(i * i for i in range(2000))


def time_calls(
    n: int, recorder_for: Callable[[int], EpisodeRecorder] | None, rate: float | None = None
) -> tuple[list[float], list[float]]:
    """Seconds per simulated tool call (recorded when `recorder_for` is given), and seconds per
    `control_work()` run right after each call: the control shows what the machine itself adds
    to the tail (other processes on shared cores, interrupts) under the same conditions.

    Back to back, or `rate` calls per second (sleeping between them, as an agent waits on its
    model and the live API)."""
    samples: list[float] = []
    control: list[float] = []
    recorder: EpisodeRecorder | None = None
    clock = time.perf_counter
    begun = clock()
    for i in range(n):
        if rate is not None and (wait := begun + i / rate - clock()) > 0:
            time.sleep(wait)
        call = ToolCall(call_id=f"c{i}", name="lookup_claim", arguments={"claim_id": f"CLM-{i // CALLS_PER_EPISODE}",
                        "member_id": f"MBR-{i // CALLS_PER_EPISODE}"})  # fmt: skip
        if recorder_for is not None and i % CALLS_PER_EPISODE == 0:
            recorder = recorder_for(i // CALLS_PER_EPISODE)  # a new episode (and patient) every 20 calls
        started = clock()
        if recorder is not None:
            recorder.tool_called(call, SideEffect.READ, LookupArgs)
        result = ToolResult(
            call_id=call.call_id, name=call.name, outcome=ToolOutcome.OK, result=lookup(call.arguments)
        )
        if recorder is not None:
            recorder.tool_returned(result, LookupResult)
        samples.append(clock() - started)
        started = clock()
        control_work()
        control.append(clock() - started)
    return samples, control


def time_woken_control(n: int, rate: float) -> list[float]:
    """Seconds per `control_work()` run straight after the same sleeps as a paced run: what waking
    up costs pure Python on this machine (caches and, on a VM, the vCPU's idle state), which the
    capture of a paced call pays too and the control after it no longer does."""
    samples: list[float] = []
    clock = time.perf_counter
    begun = clock()
    for i in range(n):
        if (wait := begun + i / rate - clock()) > 0:
            time.sleep(wait)
        started = clock()
        control_work()
        samples.append(clock() - started)
    return samples


def open_outbox(path: Path, storage: str) -> SqliteOutbox:
    """`process` (with the journal, the default), `process-direct` (a SQLite commit per append on
    the caller's thread, as before the journal) or `power`."""
    if storage == "process-direct":
        return SqliteOutbox(path, durability="process", journal=False)
    return SqliteOutbox(path, durability=storage)  # type: ignore[arg-type]


@contextmanager
def capture_stack(folder: Path, durability: str) -> Iterator[tuple[SqliteOutbox, Redactor]]:
    folder.mkdir(parents=True, exist_ok=True)
    keys = PhiKeys.from_master(secrets.token_bytes(32))
    vault = PhiVault.open(f"sqlite:///{folder / f'vault-{durability}.db'}", keys)
    outbox = open_outbox(folder / f"outbox-{durability}.db", durability)
    try:
        yield outbox, Redactor(PhiTokenizer(keys, vault), "bench-tenant")
    finally:
        outbox.close()
        vault.close()


def latency_round(
    folder: Path,
    calls: int,
    durability: str,
    kafka: dict[str, Any] | None,
    relay_kind: str,
    rate: float | None = None,
) -> dict[str, list[float]]:
    """One round: the tool alone, then with capture (and the relay, when `kafka` is given).

    The warm-up ends with a checkpoint, so the WAL has been through one cycle, as a long-running
    bridge's has: a brand-new outbox file costs about 10 us more per call for its first few thousand
    calls, while ext4 allocates the WAL's blocks (docs/capture.md)."""
    with capture_stack(folder, durability) as (outbox, redactor):
        make = lambda n: EpisodeRecorder(f"ep-{durability}-{n}-{uuid.uuid4().hex[:6]}", sink=outbox,  # noqa: E731
                                         redactor=redactor, source="loopline://bench/capture")  # fmt: skip
        time_calls(min(500, calls), make)  # warm-up: imports, caches, statement cache, the WAL's blocks
        outbox.checkpoint()
        base, _ = time_calls(calls, None, rate)  # the same call without capture, at the same pace
        woken = time_woken_control(calls, rate) if rate is not None else []
        relay: KafkaRelay | ProcessRelay | None = None
        if kafka is not None:
            relay_class = ProcessRelay if relay_kind == "process" else KafkaRelay
            relay = relay_class(outbox, topic=kafka["topic"], kafka_config=without_topic(kafka)).start()
            time_calls(min(500, calls), make)
            if not relay.flush(60):  # the relay (its process started, imports done) has caught up
                raise RuntimeError("the relay did not deliver the warm-up calls within 60 s")
        try:
            with_capture, control = time_calls(calls, make, rate)
        finally:
            delivered = relay.close(60) if relay is not None else None
        if delivered is False:
            raise RuntimeError("the relay did not deliver the latency run's events within 60 s")
    return {"base": base, "with_capture": with_capture, "control": control, "woken_control": woken}


def without_topic(kafka: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in kafka.items() if key != "topic"}


def summarise(
    rounds: list[dict[str, list[float]]], durability: str, relay_kind: str | None, rate: float | None
) -> dict[str, Any]:
    """One configuration's rounds: per-round medians against the round's own base and control."""
    cost: list[float] = []
    control: list[float] = []
    round_medians: list[float] = []
    control_medians: list[float] = []
    woken_medians: list[float] = []
    tool_medians: list[float] = []
    busy = 0.0
    for samples in rounds:
        base_median = statistics.median(samples["base"])
        round_cost = [s - base_median for s in samples["with_capture"]]
        cost += round_cost
        control += samples["control"]
        round_medians.append(statistics.median(round_cost))
        control_medians.append(statistics.median(samples["control"]))
        if samples["woken_control"]:
            woken_medians.append(statistics.median(samples["woken_control"]))
        tool_medians.append(base_median)
        busy += sum(samples["with_capture"])
    calls = sum(len(samples["with_capture"]) for samples in rounds)
    return {"calls": calls, "rounds": len(rounds), "durability": durability,
            "relay_running": relay_kind is not None, "relay": relay_kind,
            "calls_per_s": rate, "tool_median_ms": statistics.median(tool_medians) * 1e3,
            "cost_median_ms": statistics.median(round_medians) * 1e3,
            "cost_round_medians_ms": [m * 1e3 for m in round_medians],
            "cost_pooled_median_ms": statistics.median(cost) * 1e3,
            "cost_mean_ms": statistics.fmean(cost) * 1e3,
            "cost_p99_ms": pct(cost, 0.99) * 1e3, "cost_p999_ms": pct(cost, 0.999) * 1e3,
            "control_median_ms": statistics.median(control) * 1e3, "control_p99_ms": pct(control, 0.99) * 1e3,
            "control_round_medians_ms": [m * 1e3 for m in control_medians],
            "woken_control_median_ms": statistics.median(woken_medians) * 1e3 if woken_medians else None,
            "events_per_s": 2 * calls / busy}  # fmt: skip


def breakdown(folder: Path, n: int = 3000) -> dict[str, float]:
    """Median microseconds of each step of recording one tool.called event."""
    with capture_stack(folder / "breakdown", "process") as (outbox, redactor):
        chain = EpisodeChain(
            f"ep-{uuid.uuid4().hex}", tenant="bench-tenant", source="loopline://bench/capture"
        )
        arguments = {"claim_id": "CLM-1", "member_id": "MBR-1"}
        steps: dict[str, list[float]] = {
            "redact_args_us": [],
            "hash_chain_append_us": [],
            "outbox_append_us": [],
        }
        clock = time.perf_counter
        for i in range(n):
            t0 = clock()
            redacted = redactor.redact(LookupArgs, arguments)
            t1 = clock()
            call = ToolCall(call_id=f"c{i}", name="lookup_claim", arguments=redacted)
            data = ToolCalled(call=call, side_effect=SideEffect.READ)
            t2 = clock()
            event, doc = chain.seal(data, subject="lookup_claim")
            t3 = clock()
            outbox.append(event, doc)
            t4 = clock()
            steps["redact_args_us"].append(t1 - t0)
            steps["hash_chain_append_us"].append(t3 - t2)
            steps["outbox_append_us"].append(t4 - t3)
    return {name: statistics.median(values) * 1e6 for name, values in steps.items()}


def prebuilt_events(n: int) -> list[SealedEvent]:
    events: list[SealedEvent] = []
    chain = EpisodeChain("ep-0", tenant="bench-tenant", source="loopline://bench/capture")
    for i in range(n):
        if i % 40 == 0:
            chain = EpisodeChain(
                f"ep-{uuid.uuid4().hex}", tenant="bench-tenant", source="loopline://bench/capture"
            )
        call = ToolCall(
            call_id=f"c{i}",
            name="lookup_claim",
            arguments={"claim_id": "CLM-1", "member_id": "phi_0123456789abcdef"},
        )
        events.append(chain.seal(ToolCalled(call=call, side_effect=SideEffect.READ), subject="lookup_claim"))
    return events


def append_batches(outbox: SqliteOutbox, sealed: list[SealedEvent], size: int = 500) -> None:
    for i in range(0, len(sealed), size):
        batch = sealed[i : i + size]
        outbox.append_many([s.event for s in batch], [s.doc for s in batch])


def outbox_throughput(folder: Path, sealed: list[SealedEvent]) -> dict[str, float]:
    out: dict[str, float] = {}
    events = [s.event for s in sealed]
    for storage in ("process", "process-direct"):
        with open_outbox(folder / f"tp-single-{storage}.db", storage) as outbox:
            started = time.perf_counter()
            for event, doc in sealed:
                outbox.append(event, doc)
            outbox.pending_count()  # until the journal is ingested too: every row is in SQLite
            key = "append_process_events_per_s" if storage == "process" else "append_direct_events_per_s"
            out[key] = len(events) / (time.perf_counter() - started)
    with SqliteOutbox(folder / "tp-batch.db") as outbox:
        started = time.perf_counter()
        append_batches(outbox, sealed)
        out["append_many_500_events_per_s"] = len(events) / (time.perf_counter() - started)
    sample = sealed[: min(len(sealed), 4000)]
    with SqliteOutbox(folder / "tp-power-1.db", durability="power") as outbox:
        started = time.perf_counter()
        for event, doc in sample[:1000]:
            outbox.append(event, doc)
        out["append_power_1_thread_events_per_s"] = 1000 / (time.perf_counter() - started)
    with SqliteOutbox(folder / "tp-power-8.db", durability="power") as outbox:

        def append_all(chunk: list[SealedEvent], outbox: SqliteOutbox = outbox) -> None:
            for event, doc in chunk:
                outbox.append(event, doc)

        threads = [threading.Thread(target=append_all, args=(sample[i::8],)) for i in range(8)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out["append_power_8_threads_events_per_s"] = len(sample) / (time.perf_counter() - started)
        out["power_8_threads_appends_per_fsync"] = len(sample) / outbox.commits
    return out


def relay_throughput(
    folder: Path, events: list[SealedEvent], kafka: dict[str, Any], topic: str
) -> dict[str, float]:
    with SqliteOutbox(folder / "relay.db") as outbox:
        append_batches(outbox, events)
        records = [row.record() for row in outbox.rows()]
        started = time.perf_counter()
        relay = KafkaRelay(outbox, topic=topic, kafka_config=kafka, batch_size=2000).start()
        delivered = relay.flush(300)
        elapsed = time.perf_counter() - started
        relay.close(5)
    if not delivered:
        raise RuntimeError("the relay did not deliver everything within 300 s")
    mean_bytes = statistics.mean(
        len(r.value) + len(r.key) + sum(len(k) + len(v) for k, v in r.headers) for r in records
    )
    plain = plain_producer(records, kafka, f"{topic}-plain")
    return {"relay_events_per_s": len(events) / elapsed, "plain_producer_msgs_per_s": plain,
            "mean_message_bytes": mean_bytes}  # fmt: skip


def plain_producer(records: list[KafkaRecord], kafka: dict[str, Any], topic: str) -> float:
    """The same messages through a bare confluent-kafka producer with the relay's settings."""
    producer = confluent_kafka.Producer({"linger.ms": 5, **kafka, "enable.idempotence": True, "acks": "all"})
    failures: list[Any] = []
    started = time.perf_counter()
    for record in records:
        headers: list[tuple[str, str | bytes | None]] = [*record.headers]
        while True:
            try:
                producer.produce(topic, record.value, record.key, headers=headers,
                                 on_delivery=lambda err, _msg: failures.append(err) if err else None)  # fmt: skip
                break
            except BufferError:
                producer.poll(0.01)
        producer.poll(0)
    if producer.flush(300) or failures:
        raise RuntimeError(f"plain producer left messages undelivered ({len(failures)} failed)")
    return len(records) / (time.perf_counter() - started)


@contextmanager
def broker(bootstrap: str | None, folder: Path) -> Iterator[dict[str, Any]]:
    if bootstrap:
        yield {"bootstrap.servers": bootstrap}
        return
    with scratch_broker(folder) as scratch:
        yield scratch.config()


def projector_round(bootstrap: str, folder: Path, episodes: int) -> dict[str, Any]:
    """One round of bench/projector.py (beside this script) on this run's broker."""
    import projector  # bench/projector.py: run as a script, this folder is on sys.path

    topic = f"bench-projector-{uuid.uuid4().hex[:8]}"
    total = projector.produce(bootstrap, topic, episodes, partitions=4)
    (folder / "projector").mkdir(exist_ok=True)
    run = projector.run_once(bootstrap, topic, total, 500, folder / "projector", None)
    return {
        "events": total,
        **{f"{mode}_events_per_s": run[mode]["events_per_s"] for mode in projector.MODES},
    }


def render(results: dict[str, Any]) -> None:
    table = Table(title="bridge.capture (this machine)")
    for column in ("measurement", "value", "target"):
        table.add_column(column)
    for row in results["latency"]:
        relay = {None: "relay off", "thread": "relay thread producing", "process": "relay process producing"}
        pace = f"{row['calls_per_s']:,.0f} calls/s" if row["calls_per_s"] else "back to back"
        label = f"{row['durability']}, {relay[row['relay']]}, {pace}"
        target = row["durability"].startswith("process")
        table.add_row(f"capture cost / tool call, {label}: median", f"{row['cost_median_ms']:.3f} ms",
                      "<= 0.1 ms" if target else "")  # fmt: skip
        table.add_row(f"capture cost / tool call, {label}: p99", f"{row['cost_p99_ms']:.3f} ms",
                      "<= 1 ms" if target else "")  # fmt: skip
        table.add_row("  mean (what the agent pays on average, batch ingests included)",
                      f"{row['cost_mean_ms']:.3f} ms", "")  # fmt: skip
        table.add_row("  control work in the same run: median / p99",
                      f"{row['control_median_ms']:.3f} / {row['control_p99_ms']:.3f} ms", "")  # fmt: skip
        table.add_row(f"  median of the calm rounds ({len(row['calm_round_medians_ms'])} of {row['rounds']})",
                      f"{statistics.median(row['calm_round_medians_ms']):.3f} ms" if row["calm_round_medians_ms"]
                      else "-", "")  # fmt: skip
        if row["woken_control_median_ms"] is not None:
            table.add_row("  control work right after the same sleeps: median",
                          f"{row['woken_control_median_ms']:.3f} ms", "")  # fmt: skip
        table.add_row("  round medians: capture cost | control",
                      " ".join(f"{m:.3f}" for m in row["cost_round_medians_ms"]) + " | "
                      + " ".join(f"{m:.3f}" for m in row["control_round_medians_ms"]), "")  # fmt: skip
    table.add_row(
        "simulated tool call alone (median)", f"{results['latency'][0]['tool_median_ms']:.4f} ms", ""
    )
    for key, value in results["breakdown"].items():
        table.add_row(f"one tool.called: {key[:-3].replace('_', ' ')} (median)", f"{value:.1f} us", "")
    for key, value in results["throughput"].items():
        table.add_row(
            key.replace("_", " "),
            f"{value:,.1f}",
            ">= 20,000/s" if key in ("append_process_events_per_s", "relay_events_per_s") else "",
        )
    for key, value in results.get("projector", {}).items():
        if key == "events":
            continue
        target = ">= 5,000/s" if key == "faust_worker_events_per_s" else ""
        label = f"projector ({results['projector']['events']:,} events): {key.replace('_', ' ')}"
        table.add_row(label, f"{value:,.1f}" if value else "-", target)
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=20_000, help="tool calls per latency run")
    parser.add_argument("--rounds", type=int, default=5, help="rounds the latency calls are split into")
    parser.add_argument("--events", type=int, default=50_000, help="events per throughput run")
    parser.add_argument("--bootstrap-servers", help="use this broker instead of starting Tansu")
    parser.add_argument(
        "--projector-episodes", type=int, default=3000, help="ten-event episodes; 0 skips (d)"
    )
    parser.add_argument("--dir", type=Path, help="where the SQLite files go (default: a temp dir)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp, broker(args.bootstrap_servers, Path(tmp)) as kafka:
        folder = Path(tmp)
        console.print(f"[bold]capture bench[/] in {folder}; broker {kafka['bootstrap.servers']}")
        gc.collect()
        results: dict[str, Any] = {"latency": [], "throughput": {}}
        paced = max(200, args.calls // 4)
        configurations = (("process", None, args.calls, None), ("process", "thread", args.calls, None),
                          ("process", "process", args.calls, None), ("process", None, paced, PACED_RATE),
                          ("process", "thread", paced, PACED_RATE),
                          ("process", "process", paced, PACED_RATE),
                          ("process-direct", None, args.calls, None),
                          ("process-direct", None, paced, PACED_RATE),
                          ("power", None, max(200, args.calls // 10), None))  # fmt: skip
        # Round-robin: round 1 of every configuration, then round 2, ... so a slow phase of this
        # shared machine (tens of seconds) lands on all of them rather than on one.
        collected: list[list[dict[str, list[float]]]] = [[] for _ in configurations]
        for index in range(args.rounds):
            console.print(f"(a) round {index + 1} of {args.rounds}: {len(configurations)} configurations")
            for number, (durability, relay_kind, calls, rate) in enumerate(configurations):
                relay_kafka = (
                    {**kafka, "topic": f"bench-latency-{uuid.uuid4().hex[:8]}"} if relay_kind else None
                )
                collected[number].append(latency_round(folder / f"latency-{number}-round-{index}",
                                                       max(200, calls // args.rounds), durability,
                                                       relay_kafka, relay_kind or "thread", rate))  # fmt: skip
        for (durability, relay_kind, _, rate), rounds in zip(configurations, collected, strict=True):
            results["latency"].append(summarise(rounds, durability, relay_kind, rate))
        quietest = min(m for row in results["latency"] for m in row["control_round_medians_ms"])
        for row in results["latency"]:
            row["calm_round_medians_ms"] = calm(
                row["cost_round_medians_ms"], row["control_round_medians_ms"], quietest
            )
        results["breakdown"] = breakdown(folder)
        console.print(f"(b) {args.events} prebuilt events into the outbox")
        events = prebuilt_events(args.events)
        results["throughput"].update(outbox_throughput(folder, events))
        console.print(f"(b, c) {args.events} events through the relay, then a plain producer")
        results["throughput"].update(
            relay_throughput(folder, events, kafka, f"bench-relay-{uuid.uuid4().hex[:8]}")
        )
        results["throughput"]["recorder_events_per_s_process_relay_off"] = results["latency"][0][
            "events_per_s"
        ]
        if args.projector_episodes:
            console.print(
                f"(d) the projector: {args.projector_episodes} episodes, one faust worker, then plain"
            )
            results["projector"] = projector_round(
                kafka["bootstrap.servers"], folder, args.projector_episodes
            )
    results["machine"] = {"python": sys.version.split()[0], "platform": platform.platform(),
                          "cpus": __import__("os").cpu_count(), "sqlite": sqlite3.sqlite_version,
                          "librdkafka": confluent_kafka.libversion()[0], "argv": sys.argv[1:],
                          "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip
    render(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
