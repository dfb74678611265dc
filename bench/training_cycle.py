"""Benchmark: one improvement cycle of the embedded reference policy, end to end, through the CLI.

    .venv/bin/python bench/training_cycle.py [--state /tmp/cycle]          # about 20-40 minutes on 2 cores
    .venv/bin/python bench/training_cycle.py --reference OLD/models/rcm-structured  # reuse a bootstrap
    .venv/bin/python bench/training_cycle.py --state /tmp/cycle --skip-run # collect an earlier run

1. `loopline train bootstrap`: the structured reference policy from rcm-base seeds 1-6 (with
   `--reference`, a model folder built earlier is copied in first; bootstrap reuses it only when
   its bootstrap key, the training data's hash and the spec, is the one this code computes);
2. a dataset of five edge families standing in for promoted tasks (seeds 1-6) mixed half and half
   with a replay buffer of rcm-base; `loopline train sft` (LoRA); the same run again, SIGKILLed
   after its first checkpoints and restarted, which must end with the same adapter;
3. `loopline train eval`: base (rcm-base seeds 0, 7 and 8: 969 instances, none trained on, each
   paired), promoted (the five families, seeds 100-102) and held-out (the other edge families,
   same seeds), paired against the reference; `train gate` (with the verifier-card rule);
4. the same cycle on deliberately corrupted gold (`--corrupt`), which the gate must stop.

Writes bench/results/training_cycle.json: the reference's manifest summary, both evaluations with
the gate's verdicts, and the resume comparison.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "training_cycle.json"
LOOPLINE = str(Path(sys.executable).with_name("loopline"))
BASE_SEEDS = "0,7,8"
"""Generator seeds of the base suite: seed 0 and two more the training data never used (1-6)."""
FAMILIES = "edge:multi_carc,edge:duplicate_of_denied,edge:unknown_carc,edge:contradictory_remit,edge:eligibility_conflict"


def cli(state: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """One `loopline train` command in the state folder, echoed."""
    command = [LOOPLINE, "train", *args, "--state", str(state)]
    print("$", " ".join(command[1:]), flush=True)
    done = subprocess.run(command, cwd=state, capture_output=True, text=True, check=False)
    print(done.stdout[-3000:], flush=True)
    if check and done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {done.stderr[-2000:]}")
    return done


def killed_and_resumed(state: Path, adapter: str, dataset: str) -> None:
    """Train `adapter`, SIGKILL it once a checkpoint is on disk, and run it again to the end."""
    command = [
        LOOPLINE,
        "train",
        "sft",
        adapter,
        "--dataset",
        dataset,
        "--epochs",
        "4",
        "--state",
        str(state),
    ]
    run = subprocess.Popen(command, cwd=state, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint = state / "adapters" / adapter / ".checkpoint" / "checkpoint.pt"
    deadline = time.monotonic() + 1800
    while not checkpoint.exists() and time.monotonic() < deadline and run.poll() is None:
        time.sleep(1)
    time.sleep(15)
    run.send_signal(signal.SIGKILL)
    run.wait()
    cli(state, "sft", adapter, "--dataset", dataset, "--epochs", "4")


def run_cycle(state: Path, reference: Path | None) -> None:
    state.mkdir(parents=True, exist_ok=True)
    if reference is not None:
        target = state / "models" / "rcm-structured"
        if not target.exists():
            shutil.copytree(reference, target)
    cli(state, "bootstrap")
    for name, extra in (("cycle1", []), ("corrupt1", ["--corrupt"])):
        cli(
            state,
            "dataset",
            name,
            "-t",
            "rcm-edge",
            "--families",
            FAMILIES,
            "--replay",
            "rcm-base",
            "--replay-ratio",
            "0.5",
            "--seeds",
            "1-6",
            *extra,
        )
        cli(state, "sft", name, "--dataset", name, "--epochs", "4")
        if name == "cycle1":
            killed_and_resumed(state, "cycle1-resumed", name)
        cli(
            state,
            "eval",
            name,
            "--promoted",
            "rcm-edge",
            "--families",
            FAMILIES,
            "--promoted-seeds",
            "100-102",
            "--base-seeds",
            BASE_SEEDS,
        )
        cli(state, "gate", name, check=False)


def collect(state: Path) -> dict[str, Any]:
    from safetensors.torch import load_file

    manifest = json.loads((state / "models" / "rcm-structured" / "manifest.json").read_text())
    out: dict[str, Any] = {
        "reference": {
            key: manifest[key]
            for key in (
                "code_version",
                "spec",
                "rows_used",
                "rows_skipped",
                "steps",
                "templates",
                "parameters",
            )
        }
        | {
            "training_seconds": manifest["training"]["seconds"],
            "model_hash": manifest["model_hash"],
            "created_at": manifest["created_at"],
        },
        "base_seeds": BASE_SEEDS,
    }
    for name in ("cycle1", "corrupt1"):
        folder = state / "adapters" / name
        lineage = json.loads((folder / "lineage.json").read_text())
        out[name] = {
            "evaluation": json.loads((folder / "evaluation.json").read_text()),
            "training_seconds": lineage["training"]["seconds"],
            "rows_used": lineage["rows_used"],
            "templates_added": lineage["templates_added"],
            "code_version": lineage["code_version"],
        }
    a = load_file(str(state / "adapters" / "cycle1" / "adapter_model.safetensors"))
    b = load_file(str(state / "adapters" / "cycle1-resumed" / "adapter_model.safetensors"))
    resumed = json.loads((state / "adapters" / "cycle1-resumed" / "lineage.json").read_text())["training"]
    out["resume"] = {
        "resumed_from_step": resumed["resumed_from"],
        "steps": resumed["steps"],
        "max_abs_difference": max(float((a[k] - b[k]).abs().max()) for k in a),
        "same_tensors": a.keys() == b.keys(),
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--state", type=Path, default=Path("/tmp/loopline-training-cycle"))
    parser.add_argument("--skip-run", action="store_true", help="Only collect the results of an earlier run.")
    parser.add_argument(
        "--reference", type=Path, help="A reference model folder built earlier (reused when its key matches)."
    )
    args = parser.parse_args()
    if not args.skip_run:
        run_cycle(args.state.resolve(), args.reference)
    results = collect(args.state.resolve())
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    for name in ("cycle1", "corrupt1"):
        verdict = results[name]["evaluation"]["verdict"]
        print(name, "accepted" if verdict["passed"] else "stopped", verdict["reasons"])
    print("resume:", results["resume"])
    print(f"written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
