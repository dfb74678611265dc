"""Benchmark: the template head against the compositional decoder, trained alike on base families.

    nice -n 10 .venv/bin/python bench/action_heads.py [--seeds 0,1,2] [--state /tmp/loopline-heads]

For each training seed, both heads are bootstrapped from scratch with the demo's champion spec
(rcm-base seeds 1-2, width 64, 2 layers, 20 epochs; `training.structured.bootstrap`, `head=`),
then rolled out greedily through the environment and rcm.v2 on:

- the base suite: every rcm-base task of seed 0 (no training row comes from it);
- held-out families, zero-shot: every rcm-edge task of seed 0 (families neither head trained on).

Reported per head and seed: pass@1 overall and per family, mean and spread (standard deviation)
over seeds, training time and rows used. One torch thread. Results are written after every seed
to bench/results/action_heads.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import torch

from training.data import load_task_set
from training.evaluate import run_suite
from training.loop import LoopConfig
from training.policies import load_policy
from training.structured.bootstrap import HEADS, BootstrapSpec, bootstrap

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "action_heads.json"
SUITES = {"base": "rcm-base", "held-out": "rcm-edge"}


def _spec(seed: int) -> BootstrapSpec:
    return BootstrapSpec(
        seeds=(1, 2), d_model=64, layers=2, loop=LoopConfig(epochs=20, batch_size=32, lr=2e-3, seed=seed)
    )


def _log(text: str) -> None:
    print(time.strftime("%H:%M:%S"), text, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--heads", default=",".join(HEADS))
    parser.add_argument("--state", type=Path, default=Path("/tmp/loopline-heads"))
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    torch.set_num_threads(1)
    seeds = [int(s) for s in args.seeds.split(",")]
    heads = args.heads.split(",")
    suites = {name: load_task_set(spec, root=args.state, seed=0).tasks for name, spec in SUITES.items()}
    runs: dict[str, dict[str, Any]] = defaultdict(dict)
    for seed in seeds:
        for head in heads:
            started = time.time()
            folder = bootstrap(
                _spec(seed), root=args.state, taskset_root=args.state, name=f"{head}-{seed}", head=head
            )
            trained = time.time() - started
            manifest = json.loads((folder / "manifest.json").read_text())
            policy = load_policy(folder)
            found: dict[str, Any] = {"train_seconds": round(trained, 1), "rows_used": manifest["rows_used"]}
            found["rows_skipped"] = manifest["rows_skipped"]
            for suite, tasks in suites.items():
                began = time.time()
                run = run_suite(policy, suite, tasks, [0])
                families: dict[str, list[int]] = defaultdict(lambda: [0, 0])
                for trial in run.trials:
                    families[trial.family][0] += int(trial.passed)
                    families[trial.family][1] += 1
                found[suite] = {
                    "pass_rate": round(sum(t.passed for t in run.trials) / len(run.trials), 4),
                    "tasks": len(run.trials),
                    "seconds": round(time.time() - began, 1),
                    "families": {f: round(p / n, 3) for f, (p, n) in sorted(families.items())},
                }
                _log(f"{head} seed {seed} {suite}: {found[suite]['pass_rate']:.1%} of {len(run.trials)}")
            runs[head][str(seed)] = found
        _write(args.out, runs, seeds)


def _write(out: Path, runs: dict[str, dict[str, Any]], seeds: list[int]) -> None:
    summary: dict[str, Any] = {}
    for head, by_seed in runs.items():
        summary[head] = {}
        for suite in SUITES:
            rates = [r[suite]["pass_rate"] * 100 for r in by_seed.values()]
            summary[head][suite] = {
                "mean": round(statistics.mean(rates), 1),
                "sd": round(statistics.stdev(rates), 1) if len(rates) > 1 else None,
                "per_seed": [round(x, 1) for x in rates],
            }
    result = {
        "command": "bench/action_heads.py",
        "spec": _spec(0).to_json(),
        "seeds": seeds,
        "suites": {name: f"{spec} seed 0" for name, spec in SUITES.items()},
        "summary": summary,
        "runs": runs,
    }
    out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
