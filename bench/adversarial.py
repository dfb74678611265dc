"""Benchmark: the mutation run and the exploit battery on the rcm task sets, with their timings.

    .venv/bin/python bench/adversarial.py [--seed 0] [--per-carc 19] [--per-kind 8] [--workers 1]

Mutates every gold trajectory of rcm-base + rcm-edge and runs every exploit on every task, each
judged by rcm.v1 and rcm.v2; prints the mutation score per verifier, the hackable share (any
exploit above doing nothing) and the fooled share (above doing nothing with an outcome no gold
trajectory reaches), every surviving mutant and every fooled win. Writes
bench/results/adversarial.json (the summaries, without the per-task rows).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs.adversarial.battery import exploit_report  # noqa: E402
from envs.adversarial.mutation import mutation_report  # noqa: E402
from envs.rcm.tasks import generate_base, generate_edge  # noqa: E402

VERIFIERS = ("rcm.v1", "rcm.v2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-carc", type=int, default=19)
    parser.add_argument("--per-kind", type=int, default=8)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    tasks = generate_base(seed=args.seed, per_carc=args.per_carc) + generate_edge(
        seed=args.seed, per_kind=args.per_kind
    )

    start = time.perf_counter()
    mutation = mutation_report(tasks, VERIFIERS, seed=args.seed, workers=args.workers)
    mutation_s = time.perf_counter() - start
    start = time.perf_counter()
    exploits = exploit_report(tasks, verifiers=VERIFIERS, seed=args.seed, workers=args.workers)
    exploit_s = time.perf_counter() - start

    print(f"{len(tasks)} tasks, {args.workers} worker(s)")
    print(
        f"mutation: {mutation.mutants} mutants, {mutation.outcome_changing} outcome-changing, {mutation_s:.1f} s"
    )
    for v in mutation.verifiers:
        print(
            f"  {v.verifier}: score {v.overall.score:.4f} ({v.overall.rejected}/{v.overall.outcome_changing})"
        )
    for s in mutation.survivors:
        print(f"  survivor [{s.verifier}] {s.task_id} {s.operator} ({s.source}): {s.description}")
    print(f"exploits: {len(exploits.policies)} exploits, {exploit_s:.1f} s")
    for e in exploits.verifiers:
        print(
            f"  {e.verifier}: hackable {e.hackable_share:.1%} ({e.hackable_tasks}), fooled {e.fooled_share:.1%} ({e.fooled_tasks})"
        )
    fooled = [w for w in exploits.wins if not w.outcome_matches_gold]
    for w in fooled:
        print(f"  fooled [{w.verifier}] {w.task_id} {w.policy} {w.score:.3f}")
    blind = Counter((w.verifier, w.policy) for w in exploits.wins if w.outcome_matches_gold)

    result: dict[str, Any] = {
        "tasks": len(tasks),
        "seed": args.seed,
        "workers": args.workers,
        "mutation_seconds": round(mutation_s, 1),
        "exploit_seconds": round(exploit_s, 1),
        "mutation": mutation.model_dump(mode="json"),
        "exploits": {
            "policies": list(exploits.policies),
            "verifiers": [e.model_dump(mode="json", exclude={"rows"}) for e in exploits.verifiers],
            "fooled_wins": [w.model_dump(mode="json") for w in fooled],
            "gold_outcome_wins": {f"{v} {p}": n for (v, p), n in sorted(blind.items())},
            "errors": list(exploits.errors),
        },
    }
    out = ROOT / "bench" / "results" / "adversarial.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
