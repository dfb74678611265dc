"""Load any policy model by folder: the structured reference policy or a Hugging Face causal LM,
with a LoRA adapter merged in when one is named; `policy_loader` for a server that serves many
adapters of one base (a Hugging Face base is then loaded once, `training.hf.shared`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from engine import Policy

STRUCTURED = "loopline-structured"
STRUCTURED_KINDS = frozenset({STRUCTURED, "loopline-structured-composed"})
"""The structured policy with the template head, or with the compositional decoder."""


def model_kind(folder: Path) -> str:
    """`loopline-structured`, or `hf` for a Hugging Face model folder; raises for anything else."""
    config = folder / "config.json"
    if not config.is_file():
        raise FileNotFoundError(f"{folder} holds no model (config.json missing)")
    kind = json.loads(config.read_text()).get("kind")
    return STRUCTURED if kind in STRUCTURED_KINDS else "hf"


def load_policy(base: Path, adapter: Path | None = None, *, name: str | None = None) -> Policy:
    """The policy of a model folder (and adapter folder)."""
    if model_kind(base) == STRUCTURED:
        from training.structured.composed import is_composed
        from training.structured.policy import load_structured_policy

        if is_composed(base):
            from training.structured.composed_policy import load_composed_policy

            if adapter is not None:
                raise ValueError(f"{base} is a compositional decoder: it takes no LoRA adapter yet")
            return load_composed_policy(base, name=name)
        return load_structured_policy(base, adapter, name=name)
    from training.hf.policy import HFChatPolicy

    return HFChatPolicy.from_path(base, adapter, name=name)


def policy_loader(base: Path) -> Callable[[Path | None, str], Policy]:
    """(adapter folder or None, name) → policy, for a server: a Hugging Face base is loaded once
    and every adapter into it (peft multi-adapter, nothing merged); the structured policy, a small
    model, loads a copy per adapter."""
    if model_kind(base) == STRUCTURED:
        return lambda adapter, name: load_policy(base, adapter, name=name)
    from training.hf.shared import SharedBase

    shared = SharedBase(base)
    return shared.policy
