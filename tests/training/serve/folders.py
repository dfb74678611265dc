"""Small LoRA adapters of the tiny structured policy, for the policy server's tests."""

from __future__ import annotations

from pathlib import Path


def tiny_adapter(base: Path, folder: Path, seed: int) -> Path:
    """A rank-2 adapter of `base` saved in `folder`, its weights drawn from `seed`."""
    import torch

    from training.lora import LoraSettings, attach
    from training.structured.store import load_model

    torch.manual_seed(seed)
    attach(load_model(base).model, LoraSettings(r=2, alpha=4)).save_pretrained(str(folder))
    return folder
