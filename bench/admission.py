"""What the admission check costs the projector: events/s with and without it, in one process.

    .venv/bin/python bench/admission.py [--episodes 300] [--rounds 3]

Projects `--episodes` ten-event episodes (signed with a test Ed25519 key) into a fresh SQLite archive in
batches of 500, three ways, interleaved per round: (a) the check switched off (every decoded event
admitted), (b) continuity only (no keyring: each event must be the next of its stream's head),
(c) continuity and the producer's signature and scope, as the `loopline streams worker` runs. No broker: this
isolates the per-batch work the check adds. Prints the medians and writes
bench/results/admission.json with every round and the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' episode builders

from bridge.store import SqlEventArchive
from bridge.streams.admission import Admission, Admitted, Item
from bridge.streams.projector import Projector
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.broker import producer_keyring
from tests.bridge.streams.messages import message

RESULTS = Path(__file__).parent / "results" / "admission.json"
MODES = ("off", "continuity", "continuity_and_mac")


def _admit_all(self: Admission, items: list[Item]) -> Admitted:
    return Admitted(list(items), [])


def run(mode: str, messages: list[Any]) -> float:
    """Events/s of one projection of `messages` under `mode`."""
    folder = tempfile.mkdtemp(prefix="bench-admission-")
    archive = SqlEventArchive(f"sqlite:///{folder}/archive.db")
    archive.create_schema()
    projector = Projector(archive, keyring=producer_keyring() if mode == "continuity_and_mac" else None)
    if mode == "off":
        projector.admission.admit = _admit_all.__get__(projector.admission)  # type: ignore[method-assign]
    started = time.perf_counter()
    for start in range(0, len(messages), 500):
        result = projector.handle(messages[start : start + 500])
        assert not result.dead_letters, result.dead_letters[:1]
    rate = len(messages) / (time.perf_counter() - started)
    archive.engine.dispose()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    messages = [
        message(event, i, signed=True)
        for n in range(args.episodes)
        for i, event in enumerate(typical_episode(f"ep-{n}", item_id=f"CLM-{n}").events)
    ]
    rounds: dict[str, list[float]] = {mode: [] for mode in MODES}
    for _ in range(args.rounds):
        for mode in MODES:
            rounds[mode].append(round(run(mode, messages)))
    medians = {mode: statistics.median(values) for mode, values in rounds.items()}
    result = {
        "events": len(messages),
        "batch": 500,
        "events_per_s": rounds,
        "median_events_per_s": medians,
        "ratio_to_off": {mode: round(medians[mode] / medians["off"], 3) for mode in MODES},
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    for mode in MODES:
        print(f"{mode:>20}: median {medians[mode]:>7.0f} events/s  rounds {rounds[mode]}")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
