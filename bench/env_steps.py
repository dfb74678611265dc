"""Benchmark, for each domain (rcm, credit): simulated tool steps per second on one core, and the
domain sandbox's tool calls per second over loopback (uvicorn in a subprocess, the domain's
LiveBackend with keep-alive from a few threads). Credit statements travel as the borrower's
documents (workbooks and PDF text), so its live reads include writing and reading them.

    .venv/bin/python bench/env_steps.py [--seconds 5] [--threads 4] [--domain rcm|credit|both]

Prints a table and writes bench/results/env_steps.json (one section per domain).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.credit import CREDIT_TOOLS, CREDIT_TOOLS_BY_NAME  # noqa: E402
from adapters.credit.conformance.steps import FIGURES, ask, escalate, recommend  # noqa: E402
from adapters.credit.live import LiveBackend as CreditLive  # noqa: E402
from adapters.credit.sandbox import seed_world as credit_seed  # noqa: E402
from adapters.credit.sim import SimBackend as CreditSim  # noqa: E402
from adapters.rcm import RCM_TOOLS, SimBackend, seed_world  # noqa: E402
from adapters.rcm.live import LiveBackend  # noqa: E402
from adapters.rcm.tools import RCM_TOOLS_BY_NAME  # noqa: E402
from adapters.spec import ToolSpec  # noqa: E402
from adapters.toolbox import Toolbox  # noqa: E402
from schemas.tools import ToolCall  # noqa: E402

Mix = list[tuple[str, dict[str, Any]]]

# A denial-work mix: mostly reads, some writes and refusals, like an agent's episode.
MIX: Mix = [
    ("get_remittance", {"claim_id": "CLM-1016"}),
    ("get_claim", {"claim_id": "CLM-1004"}),
    (
        "check_eligibility",
        {
            "payer_id": "ACME",
            "first_name": "Kevin",
            "last_name": "Nguyen",
            "birth_date": "1983-04-19",
            "service_date": "2025-05-26",
        },
    ),
    ("get_documents", {"claim_id": "CLM-1014"}),
    (
        "request_authorization",
        {
            "patient_id": "P-004",
            "payer_id": "BLUE",
            "procedure_codes": ["11042"],
            "diagnosis_codes": ["L97.412"],
            "service_date": "2025-06-06",
            "claim_id": "CLM-1004",
        },
    ),
    (
        "submit_replacement_claim",
        {
            "claim_id": "CLM-1004",
            "original_claim_control_number": "BLUE25100400",
            "corrections": {"prior_auth_number": "PA00001"},
        },
    ),
    ("post_write_off", {"claim_id": "CLM-1005", "amount": 1250.0, "reason_code": "no_authorization"}),
    (
        "escalate_to_human",
        {
            "claim_id": "CLM-1005",
            "queue": "supervisor",
            "recommended_action": "write_off",
            "reason": "write-off above the approval limit",
            "amount": 1250.0,
        },
    ),
]

# A package-work mix: the package, statements of both sources, the bridge and terms, then the writes.
CREDIT_MIX: Mix = [
    ("get_package", {"package_id": "PKG-1001"}),
    ("get_financial_statements", {"package_id": "PKG-1001", "period": "FY2024"}),
    ("get_financial_statements", {"package_id": "PKG-1002", "period": "2025Q3"}),
    ("get_ebitda_bridge", {"package_id": "PKG-1002"}),
    ("get_term_sheet", {"package_id": "PKG-1001"}),
    ("get_fund_policy", {}),
    ask("PKG-1003", "restatement_reconciliation"),
    recommend("PKG-1001", "approve"),
    escalate("PKG-1006", "sponsor_prior_default", "covenant_lite"),
]
assert FIGURES  # the writes carry the conformance suite's figures


@dataclass(frozen=True)
class Domain:
    """What the benchmark needs of one domain."""

    name: str
    tools: list[ToolSpec[Any, Any]]
    tools_by_name: dict[str, ToolSpec[Any, Any]]
    seed: Callable[[], Any]
    sim: Callable[[Any], Any]
    live: Callable[[str], Any]
    mix: Mix
    episode_steps: int
    """The sim rolls back to the seed world every episode, as an env reset would."""

    @property
    def read_mix(self) -> Mix:
        return [step for step in self.mix if self.tools_by_name[step[0]].side_effect.value == "read"]


DOMAINS = {
    "rcm": Domain("rcm", RCM_TOOLS, RCM_TOOLS_BY_NAME, seed_world, SimBackend,
                  lambda url: LiveBackend(url, timeout_s=10), MIX, 8),
    "credit": Domain("credit", CREDIT_TOOLS, CREDIT_TOOLS_BY_NAME, credit_seed, CreditSim,
                     lambda url: CreditLive(url, timeout_s=10), CREDIT_MIX, len(CREDIT_MIX)),
}  # fmt: skip


def _pin_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = sorted(os.sched_getaffinity(0))[0]
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity)"


def bench_sim(domain: Domain, seconds: float) -> dict[str, float]:
    seed = domain.seed()
    backend = domain.sim(seed)
    toolbox = Toolbox(domain.tools, backend)
    mix = domain.mix
    calls = [ToolCall(call_id=str(n), name=name, arguments=args) for n, (name, args) in enumerate(mix)]
    parsed = [(name, domain.tools_by_name[name].args_model.model_validate(args)) for name, args in mix]

    def run(step: Callable[[int], object]) -> float:
        steps, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for n in range(1000):
                if n % domain.episode_steps == 0:
                    backend.rollback(seed)
                step(n % len(mix))
            steps += 1000
        return steps / elapsed

    def via_toolbox(i: int) -> object:
        return toolbox.call(calls[i])

    def via_backend(i: int) -> object:
        try:
            return backend.invoke(*parsed[i])
        except Exception as exc:  # refusals are part of the mix
            return exc

    return {"toolbox_steps_per_s": run(via_toolbox), "backend_steps_per_s": run(via_backend)}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def bench_sandbox(domain: Domain, seconds: float, threads: int) -> dict[str, float]:
    port = _free_port()
    command = [
        sys.executable,
        "-c",
        "from loopline.cli import main; main()",
        "sandbox",
        "serve",
        "--domain",
        domain.name,
        "--port",
        str(port),
    ]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"sandbox did not start: {server.stderr.read().decode() if server.stderr else ''}"
                )
            time.sleep(0.1)
        return {
            **_load(domain, url, seconds, threads, domain.read_mix, "reads"),
            **_load(domain, url, seconds, threads, domain.mix, "mixed"),
        }
    finally:
        server.terminate()
        server.wait(timeout=10)


def _load(domain: Domain, url: str, seconds: float, threads: int, mix: Mix, label: str) -> dict[str, float]:
    latencies: list[list[float]] = [[] for _ in range(threads)]
    failures = [0] * threads
    stop = time.perf_counter() + seconds

    def worker(index: int) -> None:
        backend = domain.live(url)
        toolbox = Toolbox(domain.tools, backend)
        n = index
        while time.perf_counter() < stop:
            name, args = mix[n % len(mix)]
            result = toolbox.call(ToolCall(call_id=str(n), name=name, arguments=args))
            latencies[index].append(result.latency_ms)
            failures[index] += result.error is not None and result.error.kind != "domain"
            n += 1
        backend.close()

    start = time.perf_counter()
    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - start
    flat = sorted(x for per in latencies for x in per)
    return {
        f"sandbox_{label}_calls_per_s": len(flat) / elapsed,
        f"sandbox_{label}_p50_ms": statistics.median(flat),
        f"sandbox_{label}_p99_ms": flat[int(len(flat) * 0.99) - 1],
        f"sandbox_{label}_transport_failures": float(sum(failures)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--domain", choices=["rcm", "credit", "both"], default="both")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "env_steps.json")
    options = parser.parse_args()
    console = Console()
    names = ["rcm", "credit"] if options.domain == "both" else [options.domain]
    # The sandboxes first: each server needs its own core, so the sim is pinned only afterwards.
    sandbox = {name: bench_sandbox(DOMAINS[name], options.seconds, options.threads) for name in names}
    pinning = _pin_one_core()
    per_domain: dict[str, Any] = {
        name: {**bench_sim(DOMAINS[name], options.seconds), **sandbox[name]} for name in names
    }
    results = {
        **per_domain,
        "threads": options.threads,
        "seconds": options.seconds,
        "sim": pinning,
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
    }
    table = Table(title="environment steps")
    table.add_column("measure")
    for name in names:
        table.add_column(name, justify="right")
    for key in per_domain[names[0]]:
        table.add_row(key, *(f"{per_domain[name].get(key, 0.0):,.1f}" for name in names))
    for key in ("threads", "seconds", "sim", "cpus", "load_average_1m", "python"):
        table.add_row(key, str(results[key]), *([""] * (len(names) - 1)))
    console.print(table)
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(results, indent=2) + "\n")
    console.print(f"wrote {options.out}")


if __name__ == "__main__":
    main()
