"""Where the floor of capture's cost lies on this machine: the same recorded tool call with three sinks.

    .venv/bin/python bench/capture_floor.py [--calls 4000] [--rounds 5]

`bench/capture.py` measures the real thing. This asks what is left to take away, by swapping only
what `EpisodeRecorder` appends to:
- `outbox`: the `SqliteOutbox` as the bridge runs it (`process` durability: the journal, one
  `pwrite` per event, ingested into SQLite by its thread every 50 ms);
- `direct`: the same outbox with `journal=False`, a SQLite commit per event on the caller's thread
  (what the outbox did before the journal);
- `none`: nothing stored. Redaction, the data models and the hash chain's seal only: the floor of
  any design that records synchronously on the agent's thread.

Each runs back to back and paced at 1,000 calls/s, in rounds that take turns (see capture.py), each
round against its own no-capture base at the same pace and its own control. No broker, no relay.
Writes bench/results/capture_floor.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from capture import CALM_MARGIN, PACED_RATE, calm, capture_stack, pct, time_calls
from rich.console import Console
from rich.table import Table

from bridge.capture import EpisodeRecorder
from bridge.capture.sink import EventSink
from schemas import Event

RESULTS = Path(__file__).parent / "results" / "capture_floor.json"
SINKS = ("outbox", "direct", "none")
console = Console()


class NullSink:
    """Stores nothing."""

    def append(self, event: Event, doc: bytes | None = None) -> None:
        return None


def one_round(folder: Path, sink_name: str, calls: int, rate: float | None) -> dict[str, float]:
    storage = "process-direct" if sink_name == "direct" else "process"
    with capture_stack(folder, storage) as (outbox, redactor):
        sink: EventSink = NullSink() if sink_name == "none" else outbox

        def make(n: int) -> EpisodeRecorder:
            return EpisodeRecorder(
                f"ep-{n}-{uuid.uuid4().hex[:6]}",
                sink=sink,
                redactor=redactor,
                source="loopline://bench/floor",
            )

        time_calls(min(1000, calls), make)  # warm-up
        outbox.checkpoint()
        base, _ = time_calls(calls, None, rate)
        recorded, control = time_calls(calls, make, rate)
    base_median = statistics.median(base)
    cost = [s - base_median for s in recorded]
    return {
        "median_us": statistics.median(cost) * 1e6,
        "p99_us": pct(cost, 0.99) * 1e6,
        "control_us": statistics.median(control) * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=4000, help="tool calls per back-to-back round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    configurations = [(sink, rate) for rate in (None, PACED_RATE) for sink in SINKS]
    rounds: dict[str, list[dict[str, float]]] = {f"{sink}@{rate}": [] for sink, rate in configurations}
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(args.rounds):
            console.print(f"round {index + 1} of {args.rounds}")
            for sink, rate in configurations:
                calls = args.calls if rate is None else args.calls // 2
                folder = Path(tmp) / f"{sink}-{rate}-{index}"
                rounds[f"{sink}@{rate}"].append(one_round(folder, sink, calls, rate))
    summary: list[dict[str, Any]] = []
    quietest = min(r["control_us"] for measured in rounds.values() for r in measured)
    for sink, rate in configurations:
        measured = rounds[f"{sink}@{rate}"]
        calm_medians = calm([r["median_us"] for r in measured], [r["control_us"] for r in measured], quietest)
        summary.append({
            "sink": sink, "calls_per_s": rate,
            "median_us": statistics.median(r["median_us"] for r in measured),
            "round_medians_us": [round(r["median_us"], 1) for r in measured],
            "calm_round_medians_us": [round(m, 1) for m in calm_medians],
            "p99_us": statistics.median(r["p99_us"] for r in measured),
            "control_round_medians_us": [round(r["control_us"], 1) for r in measured],
        })  # fmt: skip
    table = Table(title=f"capture cost per tool call by sink (this machine; calm: control within "
                        f"{CALM_MARGIN:.2f} x the quietest round's)")  # fmt: skip
    for column in (
        "sink",
        "pace",
        "median (of rounds)",
        "round medians",
        "calm rounds",
        "p99",
        "control per round",
    ):
        table.add_column(column)
    for row in summary:
        calm_medians = row["calm_round_medians_us"]
        table.add_row(row["sink"], f"{row['calls_per_s']:,.0f}/s" if row["calls_per_s"] else "back to back",
                      f"{row['median_us']:.1f} us", " ".join(f"{m:.0f}" for m in row["round_medians_us"]),
                      f"{statistics.median(calm_medians):.0f} us ({len(calm_medians)})" if calm_medians else "-",
                      f"{row['p99_us']:.0f} us", " ".join(f"{m:.0f}" for m in row["control_round_medians_us"]))  # fmt: skip
    console.print(table)
    machine = {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
               "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "argv": sys.argv[1:]}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"results": summary, "machine": machine}, indent=2) + "\n")
    console.print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
