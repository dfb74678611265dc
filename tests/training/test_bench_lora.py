"""`bench/lora.py` measures both setups on a tiny Llama shape on CPU and prints the comparison."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_lora_benchmark_reports_throughput_memory_and_mfu_for_both_setups(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = importlib.util.spec_from_file_location("bench_lora", ROOT / "bench" / "lora.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    args = argparse.Namespace(
        shape="tiny", device="cpu", seq_len=64, batch=2, steps=1, warmup=1, peak_tflops=50.0, no_save=True
    )
    rows = [bench.run_setup(argparse.Namespace(**vars(args), setup=s)) for s in ("ours", "peft-default")]
    ours, default = rows
    assert ours["trainable_params"] > default["trainable_params"] > 0  # every linear map vs q and v
    assert all(r["tokens_per_s"] > 0 and r["peak_memory_gb"] > 0 and 0 < r["mfu"] < 1 for r in rows)
    bench.report(args, rows)
    printed = capsys.readouterr().out
    assert "peft-default" in printed and "speed-up over plain peft defaults" in printed
