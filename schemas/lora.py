"""Metadata of trained LoRA adapters, as recorded in the adapter registry and in events."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from schemas.base import Contract


class AdapterMeta(Contract):
    """One trained LoRA adapter."""

    adapter_id: str
    """Registry id of the adapter."""
    base_model: str
    """Base model name or path the adapter applies to."""
    rank: int = Field(ge=1)
    """LoRA rank r."""
    alpha: float = Field(gt=0)
    """LoRA scaling alpha."""
    target_modules: tuple[str, ...]
    """Module names the adapter wraps."""
    dataset_hash: str
    """Content hash of the training dataset."""
    task_set_versions: dict[str, int] = Field(default_factory=dict)
    """Task sets (name → version) the dataset was built from."""
    parent_adapter_id: str | None = None
    """The champion this adapter was trained from, if any."""
    metrics: dict[str, float] = Field(default_factory=dict)
    """Training and evaluation metrics."""
    created_at: datetime
    """When training finished."""
    artifact_uri: str
    """Where the adapter weights are stored."""
