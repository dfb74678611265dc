"""The Hugging Face SFT is reproducible bit for bit on one CPU: one seed, one adapter; and a run
interrupted after a checkpoint and started again ends with the adapter an uninterrupted run writes."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from training.hf.sft import sft_hf
from training.loop import LoopConfig, StepReport
from training.lora import LLAMA_TARGETS, LoraSettings

SETTINGS = LoraSettings(r=4, alpha=8, dropout=0.1, target_modules=LLAMA_TARGETS, modules_to_save=())
LOOP = LoopConfig(epochs=1, batch_size=2, lr=5e-3, checkpoint_every=1)


class Interrupted(Exception):
    """Stands for the process being killed right after a checkpoint."""


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    return load_file(str(folder / "adapter_model.safetensors"))


def _identical(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_one_seed_one_adapter_and_a_resumed_run_ends_where_an_uninterrupted_one_does(
    tiny_llama: Path, toy_dataset: Path, tmp_path: Path
) -> None:
    first = sft_hf(tiny_llama, toy_dataset, tmp_path / "first", settings=SETTINGS, loop=LOOP)
    sft_hf(tiny_llama, toy_dataset, tmp_path / "second", settings=SETTINGS, loop=LOOP)
    assert _identical(_weights(tmp_path / "first"), _weights(tmp_path / "second"))
    assert first["training"]["threads"] >= 1

    def stop_at_1(report: StepReport) -> None:
        if report.step == 1:
            raise Interrupted

    with pytest.raises(Interrupted):
        sft_hf(tiny_llama, toy_dataset, tmp_path / "resumed", settings=SETTINGS, loop=LOOP, on_step=stop_at_1)
    assert not (tmp_path / "resumed" / "adapter_model.safetensors").exists()
    resumed = sft_hf(tiny_llama, toy_dataset, tmp_path / "resumed", settings=SETTINGS, loop=LOOP)
    assert resumed["training"]["resumed_from"] == 1
    assert _identical(_weights(tmp_path / "first"), _weights(tmp_path / "resumed"))

    other = sft_hf(
        tiny_llama,
        toy_dataset,
        tmp_path / "other",
        settings=SETTINGS,
        loop=LoopConfig(**{**LOOP.to_json(), "seed": 1}),
    )
    assert other["training"]["steps"] == first["training"]["steps"]
    assert not _identical(_weights(tmp_path / "first"), _weights(tmp_path / "other")), "the seed matters"
