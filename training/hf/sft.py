"""LoRA fine-tuning of a Hugging Face causal LM on a chat dataset (loss on the assistant's tokens),
through the shared training loop: fp32 on CPU; bf16 autocast and gradient checkpointing on a GPU."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from training.data import load_dataset
from training.determinism import seed_everything
from training.hf.tokenize import Tokenization, Tokenized, collate, pack, tokenize_rows
from training.lineage import code_version, tree_hash
from training.loop import LoopConfig, StepReport, TrainingLoop
from training.lora import LoraSettings, attach, save_lineage

CHECKPOINTS = ".checkpoint"


def sft_hf(
    base: Path,
    dataset: Path,
    out: Path,
    *,
    settings: LoraSettings,
    loop: LoopConfig,
    max_length: int = 16384,
    packing: bool = False,
    parent_adapter_id: str | None = None,
    on_step: Callable[[StepReport], None] | None = None,
    on_tokenized: Callable[[Tokenization], None] | None = None,
) -> dict[str, Any]:
    """Train a LoRA adapter of the model in `base` on `dataset`; write it to `out`; its lineage."""
    data = load_dataset(dataset)
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    gpu = torch.cuda.is_available()
    model: Any = AutoModelForCausalLM.from_pretrained(
        str(base), local_files_only=True, dtype=torch.bfloat16 if gpu else torch.float32
    )
    if gpu:
        model = model.cuda()
        model.gradient_checkpointing_enable()
        model.enable_input_require_grads()
    tokenization = tokenize_rows(tokenizer, data.rows, max_length=max_length)
    if on_tokenized is not None:
        on_tokenized(tokenization)
    tokenized = tokenization.sequences
    sequences = pack(tokenized, max_length) if packing else tokenized
    seed_everything(loop.seed)  # the adapter's (or model's) initial weights
    peft_model = attach(model, settings)
    device = next(peft_model.parameters()).device

    def loss_fn(batch: Sequence[Tokenized]) -> tuple[torch.Tensor, dict[str, float]]:
        tensors = {k: v.to(device) for k, v in collate(batch, int(tokenizer.pad_token_id)).items()}
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=gpu):
            output = peft_model(**tensors, use_cache=False)
        return output.loss, {"tokens": float(sum(len(s.input_ids) for s in batch))}

    result = TrainingLoop(
        peft_model,
        loss_fn,
        sequences,
        [len(s.input_ids) for s in sequences],
        loop,
        checkpoint_dir=out / CHECKPOINTS,
        on_step=on_step,
    ).run()
    peft_model.save_pretrained(str(out))
    lineage = {
        "adapter_id": out.name,
        "kind": "hf-causal-lm-lora",
        "created_at": datetime.now(UTC).isoformat(),
        "base_model": {"folder": str(base), "hash": tree_hash(base), "name": base.name},
        "parent_adapter_id": parent_adapter_id,
        "dataset": data.manifest.model_dump(mode="json"),
        "task_set_versions": data.manifest.task_set_versions,
        "hyperparameters": {
            "lora": settings.to_json(),
            "loop": loop.to_json(),
            "max_length": max_length,
            "packing": packing,
            "dtype": "bf16" if gpu else "fp32",
            "gradient_checkpointing": gpu,
        },
        "code_version": code_version(),
        "rows_used": len(tokenized),
        "rows_skipped": len(tokenization.skipped),
        "rows_skipped_by_reason": tokenization.counts(),
        "rows_skipped_detail": [asdict(s) for s in tokenization.skipped[:20]],
        "steps": len(sequences),
        "training": asdict(result),
    }
    save_lineage(out, lineage)
    shutil.rmtree(out / CHECKPOINTS, ignore_errors=True)
    return lineage
