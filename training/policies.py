"""Load any policy model by folder: the structured reference policy or a Hugging Face causal LM,
with a LoRA adapter merged in when one is named."""

from __future__ import annotations

import json
from pathlib import Path

from training.chat import ChatPolicy

STRUCTURED = "loopline-structured"


def model_kind(folder: Path) -> str:
    """`loopline-structured`, or `hf` for a Hugging Face model folder; raises for anything else."""
    config = folder / "config.json"
    if not config.is_file():
        raise FileNotFoundError(f"{folder} holds no model (config.json missing)")
    kind = json.loads(config.read_text()).get("kind")
    return STRUCTURED if kind == STRUCTURED else "hf"


def load_policy(base: Path, adapter: Path | None = None, *, name: str | None = None) -> ChatPolicy:
    """The chat policy of a model folder (and adapter folder)."""
    if model_kind(base) == STRUCTURED:
        from training.structured.policy import load_structured_policy

        return load_structured_policy(base, adapter, name=name)
    from training.hf.policy import HFChatPolicy

    return HFChatPolicy.from_path(base, adapter, name=name)
