"""Benchmark: `loopline serve-policy` over HTTP: adapter load time and serving throughput.

    .venv/bin/python bench/serve.py            # about a minute on 2 CPU cores

1. A structured policy of the reference shape (width 96, 3 layers, 4 heads; trained for one epoch
   on rcm-base tasks: load and decision times do not depend on how well it is trained) and
   `--adapters` LoRA adapters of the demo's shape (r=16 on the attention, feed-forward and decision
   maps, template tables saved in full, the vocabulary beside it), each from its own seed.
2. The server on a real uvicorn socket; every adapter is loaded through `/v1/load_lora_adapter`
   under a fresh name `--rounds` times (unloaded in between), timed at the client: p50/p95 against
   the target p95 ≤ 2 s.
3. Decisions/s: the official `openai` client sends every prefix of the rcm-base conversations (one
   assistant turn each) to the base and to an adapter, one request at a time, for `--seconds` each.
4. Tokens/s: a tiny random-weight Llama (`training.hf.tiny`) behind the same server, greedy
   generation of `--max-new-tokens` per request (completion tokens over wall time).

Results go to bench/results/serve.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from training.serve.access import AccessKeys  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "serve.json"
TARGET_P95_S = 2.0
KEYS = AccessKeys(serving="bench-serving-key-000000", release="bench-release-key-000000")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of `values`."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def build_structured(folder: Path, per_carc: int) -> tuple[Path, list[Any]]:
    """A reference-shape structured model saved to `folder`, and the rows it was fit on."""
    from envs.rcm.tasks import generate_base
    from envs.tasksets import manifest_hash
    from training.data import DatasetSpec, LoadedTaskSet, build_dataset
    from training.loop import LoopConfig
    from training.structured.bootstrap import fit_structured
    from training.structured.store import save_model

    tasks = generate_base(1, per_carc=per_carc)
    loaded = LoadedTaskSet(
        label="rcm-base (seed 1)", name="rcm-base", version=None, seed=1,
        set_hash=manifest_hash([t.compute_hash() for t in tasks]), tasks=tuple(tasks),
    )  # fmt: skip
    rows = build_dataset(DatasetSpec(name="bench", primary=(loaded,))).rows
    fit = fit_structured(
        rows, d_model=96, layers=3, heads=4, loop=LoopConfig(epochs=1, batch_size=32, lr=2e-3)
    )
    save_model(folder, fit.model, fit.vocab, {"name": "bench-structured"})
    return folder, rows


def build_adapters(base: Path, out: Path, count: int) -> list[Path]:
    """`count` adapters of the demo's shape over `base`, each from its own seed."""
    import torch

    from training.lora import LoraSettings, attach
    from training.structured.store import load_model

    folders = []
    for i in range(count):
        stored = load_model(base)
        torch.manual_seed(100 + i)
        model = attach(stored.model, LoraSettings())
        for name, param in model.named_parameters():
            if "lora_B" in name:  # peft starts B at zero; a trained adapter's B is not
                torch.nn.init.normal_(param, std=1e-3)
        folder = out / f"adapter-{i}"
        model.save_pretrained(str(folder))
        stored.vocab.save(folder / "vocab.json")
        folders.append(folder)
    return folders


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def time_loads(url: str, folders: list[Path], rounds: int) -> list[float]:
    """Seconds per `/v1/load_lora_adapter` call, at the client."""
    import httpx

    seconds = []
    with httpx.Client(base_url=url, timeout=60, headers=_bearer(KEYS.release)) as client:
        for r in range(rounds):
            for i, folder in enumerate(folders):
                name = f"a{i}-r{r}"
                started = time.perf_counter()
                response = client.post(
                    "/v1/load_lora_adapter", json={"lora_name": name, "lora_path": str(folder)}
                )
                seconds.append(time.perf_counter() - started)
                response.raise_for_status()
                client.post("/v1/unload_lora_adapter", json={"lora_name": name}).raise_for_status()
    return seconds


def decisions(
    url: str, model: str, prompts: list[tuple[list[Any], list[Any]]], budget_s: float
) -> dict[str, float]:
    """One-at-a-time chat completions for `budget_s`: decisions/s and latency percentiles (ms)."""
    import openai

    client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEYS.serving)
    latencies: list[float] = []
    started = time.perf_counter()
    i = 0
    while time.perf_counter() - started < budget_s:
        messages, tools = prompts[i % len(prompts)]
        t0 = time.perf_counter()
        client.chat.completions.create(model=model, messages=messages, tools=tools)
        latencies.append(time.perf_counter() - t0)
        i += 1
    wall = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "decisions_per_s": len(latencies) / wall,
        "p50_ms": 1000 * statistics.median(latencies),
        "p95_ms": 1000 * percentile(latencies, 95),
    }


def prefixes(rows: list[Any], limit: int) -> list[tuple[list[Any], list[Any]]]:
    """Every conversation prefix that asks for an assistant turn, up to `limit`."""
    out = []
    for row in rows:
        for at, message in enumerate(row.messages):
            if message["role"] == "assistant" and at >= 2:
                out.append((row.messages[:at], row.tools))
    return out[:limit]


def tokens_per_s(
    work: Path, prompts: list[tuple[list[Any], list[Any]]], max_new: int, count: int
) -> dict[str, float]:
    """Greedy generation by a tiny random-weight Llama behind the server."""
    import openai

    from adapters.serving import serve_in_thread
    from training.hf.policy import HFChatPolicy
    from training.hf.tiny import build_tiny_llama
    from training.serve.app import create_app

    texts = [json.dumps(m) for messages, _ in prompts[:50] for m in messages]
    folder = build_tiny_llama(work / "tiny-llama", texts)

    def load(adapter: Path | None, name: str) -> HFChatPolicy:
        policy = HFChatPolicy.from_path(folder, adapter, name=name)
        policy.max_new_tokens = max_new
        return policy

    app = create_app(load, "tiny-llama", keys=KEYS, adapter_root=work)
    with serve_in_thread(app, name="bench-llama") as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEYS.serving)
        tokens = 0
        started = time.perf_counter()
        for messages, _tools in prompts[:count]:
            done = client.chat.completions.create(model="tiny-llama", messages=messages[:2])
            tokens += done.usage.completion_tokens if done.usage else 0
        wall = time.perf_counter() - started
    return {
        "requests": count,
        "completion_tokens": tokens,
        "tokens_per_s": tokens / wall,
        "max_new_tokens": max_new,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--adapters", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--per-carc", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--llama-requests", type=int, default=8)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    import torch

    from adapters.serving import serve_in_thread
    from training.policies import load_policy
    from training.serve.app import create_app

    torch.set_num_threads(max(1, torch.get_num_threads()))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base, rows = build_structured(work / "structured", args.per_carc)
        folders = build_adapters(base, work / "adapters", args.adapters)
        params = sum(p.numel() for p in load_policy(base).model.parameters())  # type: ignore[attr-defined]
        adapter_bytes = statistics.median(
            sum(f.stat().st_size for f in folder.iterdir() if f.is_file()) for folder in folders
        )
        app = create_app(
            lambda adapter, name: load_policy(base, adapter, name=name),
            "rcm-structured",
            keys=KEYS,
            adapter_root=work / "adapters",
        )
        prompts = prefixes(rows, 400)
        with serve_in_thread(app, name="bench-policy") as url:
            loads = time_loads(url, folders, args.rounds)
            import httpx

            httpx.post(
                f"{url}/v1/load_lora_adapter",
                json={"lora_name": "canary", "lora_path": str(folders[0])},
                headers=_bearer(KEYS.release),
            )
            base_rate = decisions(url, "rcm-structured", prompts, args.seconds)
            adapter_rate = decisions(url, "canary", prompts, args.seconds)
        llama = tokens_per_s(work, prompts, args.max_new_tokens, args.llama_requests)
    result = {
        "machine": f"{platform.machine()} ({__import__('os').cpu_count()} cores), torch {torch.__version__}",
        "structured_parameters": params,
        "adapter_files_bytes_median": adapter_bytes,
        "adapter_load_s": {
            "loads": len(loads),
            "p50": statistics.median(loads),
            "p95": percentile(loads, 95),
            "max": max(loads),
            "target_p95": TARGET_P95_S,
            "met": percentile(loads, 95) <= TARGET_P95_S,
        },
        "structured_decisions": {"base": base_rate, "adapter": adapter_rate, "prompts": len(prompts)},
        "tiny_llama_generation": llama,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
