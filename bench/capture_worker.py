"""One measurement of bench/capture.py, in a process of its own, against whichever `bridge` is on its path.

    PYTHONPATH=<tree> python bench/capture_worker.py latency|throughput '<json options>'

bench/capture.py runs this once per round and configuration, with `PYTHONPATH` pointing at this
checkout or at an extracted older commit, so two versions of capture are measured in one run with
the same script. It uses only the API both share: `SqliteOutbox(path, durability=...)`,
`EpisodeRecorder`, `KafkaRelay`/`ProcessRelay(outbox, topic=..., kafka_config=...)`, and the PHI
classes from `bridge.phi` and `bridge.recording` (or, in older trees, `bridge.capture`). It prints one JSON line.
"""

from __future__ import annotations

import json
import secrets
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import bridge
from bridge.capture import KafkaRelay, ProcessRelay, SqliteOutbox
from schemas import EpisodeChain, SideEffect, ToolCall, ToolOutcome, ToolResult
from schemas.events import ToolCalled
from schemas.phi import phi_field

try:
    from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
    from bridge.recording import EpisodeRecorder
except ImportError:  # a tree where these live in bridge.capture
    from bridge.capture import (  # type: ignore[attr-defined, no-redef]
        EpisodeRecorder,
        PhiKeys,
        PhiTokenizer,
        PhiVault,
        Redactor,
    )

CALLS_PER_EPISODE = 20


class LookupArgs(BaseModel):
    claim_id: str
    member_id: str = phi_field(description="Payer member id.")


class LookupResult(BaseModel):
    claim_id: str
    status: str
    patient_name: str = phi_field(description="Name on the claim.")
    paid_amount: float


def time_calls(n: int, recorder_for: Any, rate: float | None) -> list[float]:
    """Seconds per simulated tool call (recorded when `recorder_for` is given), back to back or
    `rate` calls per second (sleeping between calls, as an agent waits on its model and live API).
    The tool is a pure function; a new episode and patient every 20 calls."""
    samples: list[float] = []
    recorder = None
    clock = time.perf_counter
    begun = clock()
    for i in range(n):
        if rate is not None and (wait := begun + i / rate - clock()) > 0:
            time.sleep(wait)
        episode = i // CALLS_PER_EPISODE
        call = ToolCall(call_id=f"c{i}", name="lookup_claim",
                        arguments={"claim_id": f"CLM-{episode}", "member_id": f"MBR-{episode}"})  # fmt: skip
        if recorder_for is not None and i % CALLS_PER_EPISODE == 0:
            recorder = recorder_for(episode)
        started = clock()
        if recorder is not None:
            recorder.tool_called(call, SideEffect.READ, LookupArgs)
        value = {"claim_id": call.arguments["claim_id"], "status": "denied", "patient_name": "Ada Lovelace",
                 "paid_amount": 0.0}  # fmt: skip
        result = ToolResult(call_id=call.call_id, name=call.name, outcome=ToolOutcome.OK, result=value)
        if recorder is not None:
            recorder.tool_returned(result, LookupResult)
        samples.append(clock() - started)
    return samples


def latency(options: dict[str, Any]) -> dict[str, Any]:
    """One round: the tool alone, then recorded, with a relay producing unless `relay` is null."""
    folder, calls, rate = Path(options["folder"]), options["calls"], options.get("rate")
    folder.mkdir(parents=True, exist_ok=True)
    keys = PhiKeys.from_master(secrets.token_bytes(32))
    vault = PhiVault.open(f"sqlite:///{folder / 'vault.db'}", keys)
    redactor = Redactor(PhiTokenizer(keys, vault), "bench-tenant")
    outbox = SqliteOutbox(folder / "outbox.db", durability=options.get("durability", "process"))

    def make(n: int) -> EpisodeRecorder:
        return EpisodeRecorder(f"ep-{n}-{uuid.uuid4().hex[:8]}", sink=outbox, redactor=redactor,
                               source="loopline://bench/capture")  # fmt: skip

    relay = None
    try:
        time_calls(500, make, None)  # warm-up: imports, caches, the files' first blocks
        base = time_calls(calls, None, rate)
        if options.get("relay"):
            relay_class = ProcessRelay if options["relay"] == "process" else KafkaRelay
            relay = relay_class(outbox, topic=options["topic"], kafka_config=options["kafka"]).start()
            time_calls(500, make, None)
            if not relay.flush(120):  # the relay is up and has caught up before anything is timed
                raise RuntimeError("the relay did not deliver the warm-up calls within 120 s")
        recorded = time_calls(calls, make, rate)
        delivered = relay.close(120) if relay is not None else True
    finally:
        outbox.close()
        vault.close()
    if not delivered:
        raise RuntimeError("the relay did not deliver the timed calls within 120 s")
    base_median = statistics.median(base)
    return {"cost_s": [s - base_median for s in recorded], "tool_median_s": base_median}


def throughput(options: dict[str, Any]) -> dict[str, Any]:
    """Events per second through a relay thread from a backlog of `events`, until every report is in."""
    folder, n = Path(options["folder"]), options["events"]
    folder.mkdir(parents=True, exist_ok=True)
    with SqliteOutbox(folder / "relay.db") as outbox:
        chain = EpisodeChain("ep-0", tenant="bench-tenant", source="loopline://bench/capture")
        for start in range(0, n, 500):
            batch = []
            for i in range(start, min(n, start + 500)):
                if i % 40 == 0:
                    chain = EpisodeChain(
                        f"ep-{uuid.uuid4().hex}", tenant="bench-tenant", source="loopline://bench/capture"
                    )
                call = ToolCall(call_id=f"c{i}", name="lookup_claim",
                                arguments={"claim_id": "CLM-1", "member_id": "phi_0123456789abcdef"})  # fmt: skip
                batch.append(
                    chain.seal(ToolCalled(call=call, side_effect=SideEffect.READ), subject="lookup_claim")
                )
            outbox.append_many([s.event for s in batch], [s.doc for s in batch])
        outbox.last_pos()
        if "start_at" in options:  # bench/scaling.py: relays of several processes start together
            time.sleep(max(0.0, float(options["start_at"]) - time.time()))
        started, started_wall = time.perf_counter(), time.time()
        relay = KafkaRelay(
            outbox, topic=options["topic"], kafka_config=options["kafka"], batch_size=2000
        ).start()
        delivered = relay.flush(300)
        elapsed = time.perf_counter() - started
        relay.close(5)
    if not delivered:
        raise RuntimeError("the relay did not deliver the backlog within 300 s")
    return {
        "relay_events_per_s": n / elapsed,
        "started_at": started_wall,
        "finished_at": started_wall + elapsed,
    }


if __name__ == "__main__":
    kind, raw = sys.argv[1], json.loads(sys.argv[2])
    answer = latency(raw) if kind == "latency" else throughput(raw)
    print(json.dumps({"bridge": bridge.__file__, **answer}))
