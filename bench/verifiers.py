"""Benchmark: scored episodes per second per core, for each rcm verifier.

    .venv/bin/python bench/verifiers.py [--seed 0] [--seconds 3]

Builds a pool of finished trajectories once (the gold, every alternative gold, doing nothing, and
the scripted baselines on rcm-base and rcm-edge), then scores the pool over and over on one
pinned core with each verifier until `--seconds` have passed. Scoring is what a training run pays
per episode; rolling out is not timed. Writes bench/results/verifiers.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs.catalog import generate  # noqa: E402
from envs.contract import Trajectory  # noqa: E402
from envs.domain import DOMAINS  # noqa: E402
from envs.env import ToolEnv, replay  # noqa: E402
from envs.rcm.policies import BASELINES  # noqa: E402
from envs.rollout import Policy, play  # noqa: E402
from envs.verifiers.base import VERIFIERS  # noqa: E402
from schemas.tasks import Task  # noqa: E402

TARGET = 1_000


def pool(seed: int) -> list[tuple[Task, Trajectory]]:
    """(task, trajectory) pairs to score: golds, alternatives, nothing, baselines."""
    domain = DOMAINS.get("rcm")
    pairs: list[tuple[Task, Trajectory]] = []
    tasks = generate("rcm-base", seed) + generate("rcm-edge", seed)
    for task in tasks:
        for calls in (task.gold_solution, *task.alternative_solutions):
            pairs.append((task, replay(domain, task, calls, seed=seed)))
        env = ToolEnv(domain)
        env.reset(task, seed=seed)
        pairs.append((task, env.trajectory()))
        for policy, _ in BASELINES.values():
            pairs.append((task, rollout(task, policy, seed)))
    return pairs


def rollout(task: Task, policy: Policy, seed: int) -> Trajectory:
    return play(task, policy, seed=seed).trajectory


def as_verifier(task: Task, name: str) -> Task:
    return task.model_copy(update={"verifier": task.verifier.model_copy(update={"verifier": name})})


def measure(pairs: list[tuple[Task, Trajectory]], name: str, seconds: float) -> dict[str, Any]:
    verifier = VERIFIERS.get(name)
    retargeted = [(as_verifier(task, name), trajectory) for task, trajectory in pairs]
    for task, trajectory in retargeted:  # warm: rcm.v1 caches each task's gold world
        verifier.score(task, trajectory)
    scored, passed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for task, trajectory in retargeted:
            passed += verifier.score(task, trajectory).passed
        scored += len(retargeted)
    elapsed = time.perf_counter() - start
    return {"episodes": scored, "seconds": round(elapsed, 3), "per_second": round(scored / elapsed, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    pairs = pool(args.seed)
    results: dict[str, Any] = {"seed": args.seed, "trajectories": len(pairs), "target_per_core": TARGET}
    for name in ("rcm.v1", "rcm.v2"):
        results[name] = measure(pairs, name, args.seconds)
        verdict = "meets" if results[name]["per_second"] >= TARGET else "misses"
        print(
            f"{name}: {results[name]['per_second']:,.0f} scored episodes/s on one core ({verdict} {TARGET:,})"
        )
    out = ROOT / "bench" / "results" / "verifiers.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)} ({len(pairs)} trajectories)")


if __name__ == "__main__":
    main()
