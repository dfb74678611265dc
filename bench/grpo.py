"""Benchmark: GRPO against one round of rejection sampling (RFT) on a family where SFT plateaus.

    nice -n 10 .venv/bin/python bench/grpo.py [--state /tmp/loopline-grpo] [--reference FOLDER] [--matched]

The base is the structured policy bootstrapped with the demo's spec (rcm-base seeds 1-2, width 64,
2 layers, 20 epochs; `--reference` copies a model folder built earlier, reused only when its
bootstrap key is the one this code computes). Its weak family is CO-16 (`carc:16`). For each of 3
training seeds, from the same base:

- GRPO (`training.structured.grpo`): the CO-16 tasks of rcm-base seeds 1-4, k rollouts per task per
  round through the environment, group-relative advantages, a KL penalty to the base, R rounds;
- RFT (`training.rft`, as `loopline train rft` does it): one round of k sampled rollouts per task of
  the same tasks, the verifier-passed ones kept, mixed half and half with rcm-base replay rows
  (seeds 1-4), a LoRA trained on them (4 epochs); with `--matched` also `rft-matched`, the same
  with k x R rollouts per task, as many as GRPO samples over its rounds;

then both adapters and the base greedily on held-out instances: the CO-16 tasks of rcm-base seeds
0, 7 and 8 (57 tasks no training step used), and, for regressions, every rcm-base task of seed 0.
Reported: pass@1 per policy and seed, mean and spread (standard deviation) over the seeds, and the
paired GRPO - RFT (and GRPO - RFT-matched) difference per task averaged over the seeds, with a 95% interval from resampling
tasks. Everything runs on one CPU thread. Writes bench/results/grpo.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from training.data import load_task_set, write_dataset
from training.data.builder import build_dataset
from training.data.sources import LoadedTaskSet, only_families
from training.evaluate import SuiteRun, bootstrap_interval, run_suite
from training.grpo import GrpoSettings, RoundReport
from training.loop import LoopConfig
from training.lora import LoraSettings
from training.rft import RftSettings, rft_spec, sample_rollouts
from training.structured.bootstrap import BootstrapSpec, bootstrap
from training.structured.grpo import grpo_structured
from training.structured.policy import load_structured_policy
from training.structured.sft import sft_structured

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "grpo.json"
FAMILY = "carc:16"
TRAIN_SEEDS = (1, 2, 3, 4)
HELD_OUT_SEEDS = (0, 7, 8)
TRAINING_SEEDS = (0, 1, 2)
BASE_SPEC = BootstrapSpec(
    seeds=(1, 2), d_model=64, layers=2, loop=LoopConfig(epochs=20, batch_size=32, lr=2e-3)
)
"""The demo's champion spec (`loopline.demo`): small enough to build in minutes."""


def _sets(seeds: tuple[int, ...], root: Path, family: str | None) -> list[LoadedTaskSet]:
    sets = [load_task_set("rcm-base", root=root, seed=s) for s in seeds]
    return [only_families(s, frozenset({family})) for s in sets] if family else sets


def _log(text: str) -> None:
    print(time.strftime("%H:%M:%S"), text, flush=True)


def _by_task(run: SuiteRun) -> dict[str, float]:
    return {t.task_id: float(t.passed) for t in run.trials}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--state", type=Path, default=Path("/tmp/loopline-grpo"))
    parser.add_argument(
        "--reference", type=Path, help="A base model folder built earlier (reused when its key matches)."
    )
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument(
        "--matched",
        action="store_true",
        help="Also RFT with as many rollouts as GRPO (about 6 more minutes).",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    state: Path = args.state.resolve()
    taskset_root = state / "tasksets"
    if args.reference is not None and not (state / "models" / "demo-champion").exists():
        shutil.copytree(args.reference, state / "models" / "demo-champion")
    began = time.monotonic()
    base = bootstrap(BASE_SPEC, root=state, taskset_root=taskset_root, name="demo-champion")
    _log(f"base {base}")
    train = _sets(TRAIN_SEEDS, taskset_root, FAMILY)
    replay = _sets(TRAIN_SEEDS, taskset_root, None)
    held_out = [t for s in _sets(HELD_OUT_SEEDS, taskset_root, FAMILY) for t in s.tasks]
    regression = list(_sets((0,), taskset_root, None)[0].tasks)
    grpo_settings = {"k": args.k, "rounds": args.rounds}
    runs: dict[str, dict[str, Any]] = {}

    def evaluate(name: str, adapter: Path | None) -> dict[str, Any]:
        policy = load_structured_policy(base, adapter, name=name)
        family = run_suite(policy, "held-out", held_out, [0])
        whole = run_suite(policy, "base-seed-0", regression, [0])
        _log(f"{name}: CO-16 held-out {family.pass_at_1():.1%}, rcm-base seed 0 {whole.pass_at_1():.1%}")
        return {"held_out": family.pass_at_1(), "base_seed_0": whole.pass_at_1(), "by_task": _by_task(family)}

    runs["base"] = evaluate("base", None)
    for seed in TRAINING_SEEDS:
        out = state / "adapters" / f"grpo-{seed}"
        shutil.rmtree(out, ignore_errors=True)
        settings = GrpoSettings(k=args.k, rounds=args.rounds, seed=seed)
        tick = time.monotonic()

        def report(r: RoundReport, seed: int = seed) -> None:
            _log(
                f"grpo seed {seed} round {r.round}: reward {r.mean_reward:.3f}, no spread "
                f"{r.groups_without_spread}/{r.groups}, steps {r.steps_trained}, KL {r.mean_kl:.4f}"
            )

        lineage = grpo_structured(base, train, out, settings=settings, lora=LoraSettings(), on_round=report)
        runs[f"grpo-{seed}"] = evaluate(f"grpo-{seed}", out) | {
            "seconds": time.monotonic() - tick,
            "rollouts": sum(r["rollouts"] for r in lineage["rounds"]),
            "rounds": lineage["rounds"],
        }
        variants = [("rft", args.k)] + ([("rft-matched", args.k * args.rounds)] if args.matched else [])
        for kind, k in variants:
            tick = time.monotonic()
            rft = RftSettings(k=k, temperature=1.0, seed=seed)
            samples = sample_rollouts(load_structured_policy(base), train, rft)
            spec = rft_spec(
                f"{kind}-{seed}",
                train,
                samples,
                rft,
                policy="base",
                replay=replay,
                replay_ratio=0.5,
                replay_seed=seed,
            )
            folder = write_dataset(build_dataset(spec), state / "datasets")
            out = state / "adapters" / f"{kind}-{seed}"
            shutil.rmtree(out, ignore_errors=True)
            sft_lineage = sft_structured(
                base,
                folder,
                out,
                settings=LoraSettings(),
                loop=LoopConfig(epochs=4, batch_size=32, lr=2e-3, seed=seed),
            )
            runs[f"{kind}-{seed}"] = evaluate(f"{kind}-{seed}", out) | {
                "seconds": time.monotonic() - tick,
                "rollouts": len(samples),
                "sampling": spec.sampling,
                "rows_used": sft_lineage["rows_used"],
            }
    results = summarise(runs, matched=args.matched) | {
        "command": "nice -n 10 .venv/bin/python bench/grpo.py",
        "family": FAMILY,
        "train_seeds": TRAIN_SEEDS,
        "held_out_seeds": HELD_OUT_SEEDS,
        "held_out_tasks": len(held_out),
        "training_tasks": sum(len(s.tasks) for s in train),
        "training_seeds": TRAINING_SEEDS,
        "base_spec": BASE_SPEC.to_json(),
        "grpo": GrpoSettings(**grpo_settings).to_json(),
        "rft": {"k": args.k, "temperature": 1.0, "replay_ratio": 0.5, "epochs": 4, "lr": 2e-3},
        "rft_matched": {"k": args.k * args.rounds} if args.matched else None,
        "threads": 1,
        "seconds": time.monotonic() - began,
        "runs": {name: {k: v for k, v in run.items() if k != "by_task"} for name, run in runs.items()},
    }
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    _log(
        json.dumps(
            {k: results[k] for k in ("held_out", "paired_grpo_minus_rft")},
            indent=1,
        )
    )
    _log(f"written to {RESULTS.relative_to(ROOT)}")


def summarise(runs: dict[str, dict[str, Any]], *, matched: bool) -> dict[str, Any]:
    """Mean and spread over the seeds, and the paired GRPO - RFT difference with its interval."""

    def spread(kind: str, key: str) -> dict[str, Any]:
        values = [runs[f"{kind}-{s}"][key] for s in TRAINING_SEEDS]
        return {"per_seed": values, "mean": statistics.mean(values), "sd": statistics.stdev(values)}

    tasks = sorted(runs["base"]["by_task"])

    def paired(other: str) -> dict[str, Any]:
        def diff(s: int, t: str) -> float:
            return float(runs[f"grpo-{s}"]["by_task"][t] - runs[f"{other}-{s}"]["by_task"][t])

        diffs = [statistics.mean(diff(s, t) for s in TRAINING_SEEDS) for t in tasks]
        low, high = bootstrap_interval(diffs)
        return {
            "mean": statistics.mean(diffs),
            "ci95": [low, high],
            "per_seed": [statistics.mean(diff(s, t) for t in tasks) for s in TRAINING_SEEDS],
            "tasks": len(tasks),
        }

    kinds = ("grpo", "rft", "rft-matched") if matched else ("grpo", "rft")
    return {
        "held_out": {"base": runs["base"]["held_out"]} | {k: spread(k, "held_out") for k in kinds},
        "base_seed_0": {"base": runs["base"]["base_seed_0"]} | {k: spread(k, "base_seed_0") for k in kinds},
        "paired_grpo_minus_rft": paired("rft"),
    } | ({"paired_grpo_minus_rft_matched": paired("rft-matched")} if matched else {})


if __name__ == "__main__":
    main()
