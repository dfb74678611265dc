"""LoRA fine-tuning of the structured policy on a chat dataset, saved as an adapter with its lineage."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch

from training.data import load_dataset
from training.determinism import seed_everything
from training.lineage import code_version
from training.loop import LoopConfig, StepReport, TrainingLoop
from training.lora import LoraSettings, attach, save_lineage
from training.structured.batch import loss, template_weights
from training.structured.examples import Step, prepare
from training.structured.store import load_model
from training.structured.vocab import Vocab

CHECKPOINTS = ".checkpoint"


def sft_structured(
    base: Path,
    dataset: Path,
    out: Path,
    *,
    settings: LoraSettings,
    loop: LoopConfig,
    parent_adapter_id: str | None = None,
    on_step: Callable[[StepReport], None] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Train an adapter on `dataset` over the base model in `base`; write it to `out`; its lineage."""
    stored = load_model(base)
    data = load_dataset(dataset)
    vocab = Vocab.from_json(stored.vocab.to_json())
    known = len(vocab.templates)
    tell = progress or (lambda stage, done, total: None)
    prepared = prepare(
        data.rows,
        vocab,
        grow=True,
        max_slots=stored.model.config.max_slots,
        progress=lambda d, t: tell("encoding", d, t),
    )
    if not prepared.steps:
        raise ValueError(
            f"none of the {len(data.rows)} rows of {dataset} can be learnt by this base model: each needs"
            " a value no tool returned, or more arguments than its slot table holds"
            f" ({stored.model.config.max_slots})"
        )
    seed_everything(loop.seed)  # the adapter's (or model's) initial weights
    model = attach(stored.model, settings)
    n_templates = len(vocab.templates)
    weights = template_weights(prepared.steps, n_templates)

    def loss_fn(steps: Sequence[Step]) -> tuple[torch.Tensor, dict[str, float]]:
        return loss(model, steps, n_templates, weights)  # type: ignore[arg-type]

    result = TrainingLoop(
        model,
        loss_fn,
        prepared.steps,
        [len(s.encoded.kinds) for s in prepared.steps],
        loop,
        checkpoint_dir=out / CHECKPOINTS,
        on_step=on_step,
    ).run()
    model.save_pretrained(str(out))
    vocab.save(out / "vocab.json")
    lineage = {
        "adapter_id": out.name,
        "kind": "loopline-structured-lora",
        "created_at": datetime.now(UTC).isoformat(),
        "base_model": {"folder": str(base), "hash": stored.model_hash, "name": stored.manifest.get("name")},
        "parent_adapter_id": parent_adapter_id,
        "dataset": data.manifest.model_dump(mode="json"),
        "task_set_versions": data.manifest.task_set_versions,
        "hyperparameters": {"lora": settings.to_json(), "loop": loop.to_json()},
        "code_version": code_version(),
        "rows_used": prepared.rows_used,
        "rows_skipped": prepared.rows_skipped,
        "steps": len(prepared.steps),
        "templates_added": n_templates - known,
        "training": asdict(result),
    }
    save_lineage(out, lineage)
    shutil.rmtree(out / CHECKPOINTS, ignore_errors=True)
    return lineage
