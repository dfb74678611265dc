"""LoRA adapters with peft: which modules they wrap, attaching them, and saving them with their lineage.

An adapter folder holds what peft writes (`adapter_config.json`, `adapter_model.safetensors`) and
`lineage.json`: the base model's hash, the dataset manifest, the task-set versions, every
hyperparameter, the code version and how training went. A structured policy's adapter also carries
its `vocab.json` when it learned actions the base never saw.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from peft import LoraConfig, PeftModel, get_peft_model
from torch import nn

LINEAGE = "lineage.json"

STRUCTURED_TARGETS = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "up_proj",
    "down_proj",
    "decision",
)
"""The structured policy's attention, feed-forward and decision maps (new actions are new rows of
the decision head). The pointer heads are left as they are: copying is generic, new actions reach
it through their template and slot rows, and adapting it disturbs copying on tasks the adapter
never saw."""
STRUCTURED_SAVED = ("template_embedding", "slot_embedding")
"""Small tables trained in full and saved with the adapter (the slots of new actions need rows)."""
LLAMA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
"""Every linear map of a Llama-family decoder layer."""


@dataclass(frozen=True)
class LoraSettings:
    """A LoRA adapter's shape (recorded in its lineage)."""

    r: int = 16
    alpha: int = 32
    dropout: float = 0.0
    target_modules: tuple[str, ...] = STRUCTURED_TARGETS
    modules_to_save: tuple[str, ...] = STRUCTURED_SAVED

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def peft_config(self) -> LoraConfig:
        return LoraConfig(
            r=self.r,
            lora_alpha=int(self.alpha),
            lora_dropout=self.dropout,
            target_modules=list(self.target_modules),
            modules_to_save=list(self.modules_to_save) or None,
        )


def attach(model: nn.Module, settings: LoraSettings) -> PeftModel:
    """`model` with fresh LoRA adapters; only their weights (and `modules_to_save`) train."""
    return get_peft_model(model, settings.peft_config())


def load_adapter(model: nn.Module, folder: Path, *, merge: bool = True) -> nn.Module:
    """`model` with the adapter in `folder` applied (merged into the weights for serving speed)."""
    if not (folder / "adapter_config.json").is_file():
        raise FileNotFoundError(f"{folder} holds no LoRA adapter (adapter_config.json missing)")
    wrapped = PeftModel.from_pretrained(model, str(folder))
    merged: nn.Module = wrapped.merge_and_unload() if merge else wrapped
    return merged


def save_lineage(folder: Path, lineage: dict[str, Any]) -> None:
    """Write `lineage.json` next to the adapter."""
    (folder / LINEAGE).write_text(json.dumps(lineage, indent=1, default=str) + "\n")


def read_lineage(folder: Path) -> dict[str, Any]:
    """An adapter's lineage."""
    path = folder / LINEAGE
    if not path.is_file():
        raise FileNotFoundError(f"{folder} has no {LINEAGE}")
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data
