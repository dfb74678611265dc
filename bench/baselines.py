"""Benchmark: pass rate of the reference policy and the naive baselines on a domain's task sets:
rcm per CARC category (base set), edge kind and queue; credit per recipe (base set) and edge family.

    .venv/bin/python bench/baselines.py [--seed 0] [--workers 2] [--domain rcm|credit]

Prints markdown tables and writes bench/results/baselines.json (rcm) or baselines_credit.json
(credit). The same numbers come from `loopline envs rollout --policy NAME --task-set rcm-base --by carc`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs.catalog import generate, policy  # noqa: E402
from envs.rollout import RolloutConfig, run_rollouts, summarize  # noqa: E402

POLICIES = ("reference", "always_resubmit", "always_appeal", "write_off_all", "escalate_all")
SETS = (("rcm-base", "carc"), ("rcm-edge", "edge"), ("rcm-queue", "queue"))
DOMAINS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "rcm": (POLICIES, SETS),
    "credit": (
        ("reference", "approve_all", "decline_all", "escalate_all", "request_all"),
        (("credit-base", "recipe"), ("credit-edge", "edge")),
    ),
}


def run(seed: int, workers: int, domain: str = "rcm") -> dict[str, Any]:
    policies, sets = DOMAINS[domain]
    results: dict[str, Any] = {"seed": seed, "workers": workers, "domain": domain, "task_sets": {}}
    for name, prefix in sets:
        tasks = generate(name, seed)
        per_policy: dict[str, Any] = {}
        for policy_name in policies:
            start = time.perf_counter()
            records = run_rollouts(
                tasks, policy(domain, policy_name), workers=workers, config=RolloutConfig(seed=seed)
            )
            per_policy[policy_name] = {
                "seconds": round(time.perf_counter() - start, 2),
                "categories": {
                    s.category: {"episodes": s.episodes, "passed": s.passed, "pass_rate": round(s.pass_rate, 4),
                                 "mean_score": round(s.mean_score, 4)}
                    for s in summarize(records, prefix)
                },
            }  # fmt: skip
            print(f"{name}: {policy_name} done in {per_policy[policy_name]['seconds']} s", file=sys.stderr)
        results["task_sets"][name] = {"by": prefix, "tasks": len(tasks), "policies": per_policy}
    return results


def markdown(results: dict[str, Any]) -> str:
    out = []
    for name, block in results["task_sets"].items():
        policies = block["policies"]
        names = list(policies)
        categories = list(policies[names[0]]["categories"])
        out.append(f"**{name}** ({block['tasks']} tasks, pass rate by `{block['by']}`)\n")
        out.append("| " + " | ".join([block["by"], "n", *names]) + " |")
        out.append("|" + "---|" * (len(names) + 2))
        for category in categories:
            n = policies[names[0]]["categories"][category]["episodes"]
            rates = [f"{policies[p]['categories'][category]['pass_rate']:.0%}" for p in names]
            label = f"**{category}**" if category == "all" else category
            out.append("| " + " | ".join([label, str(n), *rates]) + " |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--domain", choices=sorted(DOMAINS), default="rcm")
    args = parser.parse_args()
    results = run(args.seed, args.workers, args.domain)
    out = (
        ROOT
        / "bench"
        / "results"
        / ("baselines.json" if args.domain == "rcm" else f"baselines_{args.domain}.json")
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(markdown(results))
    print(f"wrote {out.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
