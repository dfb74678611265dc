"""`deterministic` holds a run to one seed, deterministic kernels and a fixed thread count, and gives
everything back; a structured model trained from scratch twice with one seed is the same, bit for bit."""

from __future__ import annotations

import os

import torch

from training.data import ChatRow
from training.determinism import deterministic, threads_for
from training.loop import LoopConfig
from training.structured.bootstrap import fit_structured


def test_a_run_is_held_to_its_settings_and_they_are_restored_after() -> None:
    before = (torch.are_deterministic_algorithms_enabled(), torch.get_num_threads())
    with deterministic(7, threads=1) as held:
        assert held == type(held)(seed=7, threads=1)
        assert torch.are_deterministic_algorithms_enabled() and torch.get_num_threads() == 1
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
        first = torch.rand(4)
    with deterministic(7, threads=1):
        assert torch.equal(torch.rand(4), first)  # every generator seeded from the run's seed
    assert (torch.are_deterministic_algorithms_enabled(), torch.get_num_threads()) == before
    assert threads_for(10_000) == (os.cpu_count() or 1) and threads_for(1) == 1


def test_a_model_trained_from_scratch_twice_with_one_seed_is_identical(tiny_rows: list[ChatRow]) -> None:
    def fit(seed: int) -> dict[str, torch.Tensor]:
        loop = LoopConfig(epochs=3, batch_size=8, lr=5e-3, seed=seed)
        return fit_structured(tiny_rows, d_model=32, layers=1, heads=2, loop=loop).model.state_dict()

    first, second, other = fit(0), fit(0), fit(1)
    assert first.keys() == second.keys()
    assert all(torch.equal(first[k], second[k]) for k in first)
    assert any(not torch.equal(first[k], other[k]) for k in first)
