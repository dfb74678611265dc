"""Bit-for-bit reproducible training: one seed for every generator, deterministic kernels, a fixed
number of CPU threads.

`deterministic(seed)` holds for the length of a training run (the shared loop, TRL's trainer):
Python's, NumPy's and torch's generators seeded; `torch.use_deterministic_algorithms(True)` (an op
with no deterministic kernel raises instead of silently varying); cuDNN's autotuner off and
cuBLAS's workspace fixed on a GPU; and the intra-op thread count pinned, because a CPU reduction
split over a different number of threads adds in a different order. What it does not cover:
another CPU (vector width), another torch build, or another thread count give other, equally
valid, bits. Everything is restored on exit, so a test or a server that trains is left as it was.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Determinism:
    """The settings a run was held to (recorded in its lineage)."""

    seed: int
    threads: int


def threads_for(requested: int | None = None) -> int:
    """The intra-op thread count a run is pinned to: `requested`, else the count torch runs with
    now (its default is the machine's cores, so one machine gives one count), never more than
    the CPUs there are."""
    cpus = os.cpu_count() or 1
    return max(1, min(requested or torch.get_num_threads(), cpus))


def seed_everything(seed: int) -> None:
    """Seed Python's, NumPy's (when installed) and torch's generators (every device)."""
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy comes with the training stack
        return
    np.random.seed(seed % 2**32)


@contextmanager
def deterministic(seed: int, threads: int | None = None) -> Iterator[Determinism]:
    """Run the block seeded, with deterministic kernels and a fixed thread count."""
    n = threads_for(threads)
    before = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        torch.get_num_threads(),
        torch.backends.cudnn.deterministic,
        torch.backends.cudnn.benchmark,
        os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
    )
    os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(n)
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    seed_everything(seed)
    try:
        yield Determinism(seed, n)
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])
        torch.set_num_threads(before[2])
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = before[3], before[4]
        if before[5] is None:
            os.environ.pop("CUBLAS_WORKSPACE_CONFIG", None)
        else:
            os.environ["CUBLAS_WORKSPACE_CONFIG"] = before[5]
