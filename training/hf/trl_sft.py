"""LoRA SFT with TRL's `SFTTrainer` on a dataset's TRL export, loss on the assistant's tokens only.

The same rows, adapter shape and seed as `training.hf.sft`, trained by TRL instead of the shared
loop (what a team that already runs TRL would do with Loopline's data):

- the rows are screened with `training.hf.tokenize.tokenize_rows` first: one that does not render
  prefix by prefix, does not render, or is too long is left out and reported (TRL would train on
  it, or fail on it, without saying which), then exported with `--format trl`'s code
  (`training.data.export`) and read back with `datasets` as any TRL user reads a JSONL file;
- `assistant_only_loss=True`: the chat template must mark the assistant's turns with
  `{% generation %}` (a template without them is refused here rather than patched);
- packing is off, or TRL's best-fit-decreasing packing, which is padding-free: sequences are
  concatenated with restarting position ids and no attention mask, so each attends to itself only
  (TRL's `wrapped` strategy, which lets them see each other, is not offered);
- nothing downloads (`local_files_only`, `report_to="none"`), and the run is deterministic on CPU
  (`training.determinism`).
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerBase

from training.data import load_dataset
from training.data.export import write_export
from training.determinism import deterministic
from training.hf.tokenize import Tokenization, has_generation_markers, tokenize_rows
from training.loop import LoopConfig
from training.lora import LoraSettings

EXPORT = "train.trl.jsonl"


@dataclass(frozen=True)
class TrlRun:
    """What `sft_trl` trained on and how it went."""

    tokenization: Tokenization
    """The rows kept and the rows left out, by reason."""
    train_dataset: Any
    """TRL's tokenized training set (`input_ids`, `labels`, ...)."""
    final_loss: float
    steps: int


@dataclass(frozen=True)
class Prepared:
    """TRL's trainer, built on the rows that render, and what was left out."""

    trainer: Any
    tokenization: Tokenization


def trl_trainer(
    base: Path,
    dataset: Path,
    work: Path,
    *,
    settings: LoraSettings,
    loop: LoopConfig,
    max_length: int = 16384,
    packing: bool = False,
) -> Prepared:
    """TRL's `SFTTrainer` for a LoRA of `base` on `dataset`'s rows that render (exported to
    `work`); its `train_dataset` is what it trains on, token ids and labels."""
    from datasets import load_dataset as hf_load_dataset
    from trl.trainer.sft_config import SFTConfig
    from trl.trainer.sft_trainer import SFTTrainer

    data = load_dataset(dataset)
    tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    if not has_generation_markers(tokenizer):
        raise ValueError(
            f"{base}'s chat template has no {{% generation %}} markers: assistant-only loss needs them"
        )
    tokenization = tokenize_rows(tokenizer, data.rows, max_length=max_length)
    rows = [data.rows[i] for i in tokenization.kept]
    if not rows:
        raise ValueError(f"no row of {dataset} can be trained on: {tokenization.report()}")
    work.mkdir(parents=True, exist_ok=True)
    write_export(rows, "trl", work / EXPORT)
    train = hf_load_dataset(
        "json", data_files=str(work / EXPORT), split="train", cache_dir=str(work / ".datasets-cache")
    )
    model: Any = AutoModelForCausalLM.from_pretrained(str(base), local_files_only=True, dtype=torch.float32)
    config = SFTConfig(
        output_dir=str(work / ".trl"),
        assistant_only_loss=True,
        packing=packing,
        packing_strategy="bfd",
        max_length=max_length,
        num_train_epochs=loop.epochs,
        per_device_train_batch_size=loop.batch_size,
        learning_rate=loop.lr,
        weight_decay=loop.weight_decay,
        warmup_steps=loop.warmup,
        max_grad_norm=loop.max_grad_norm,
        lr_scheduler_type="cosine",
        seed=loop.seed,
        data_seed=loop.seed,
        use_cpu=not torch.cuda.is_available(),
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    trainer = SFTTrainer(
        model=model,
        args=config,
        train_dataset=train,
        processing_class=tokenizer,
        peft_config=settings.peft_config(),
    )
    return Prepared(trainer, tokenization)


def sft_trl(
    base: Path,
    dataset: Path,
    out: Path,
    *,
    settings: LoraSettings,
    loop: LoopConfig,
    max_length: int = 16384,
    packing: bool = False,
) -> TrlRun:
    """Train a LoRA adapter of the model in `base` on `dataset` with TRL; write it to `out`."""
    with deterministic(loop.seed):
        prepared = trl_trainer(
            base, dataset, out, settings=settings, loop=loop, max_length=max_length, packing=packing
        )
        trainer = prepared.trainer
        output = trainer.train()
        trained: Any = trainer.model
        trained.save_pretrained(str(out))
    shutil.rmtree(out / ".datasets-cache", ignore_errors=True)
    shutil.rmtree(out / ".trl", ignore_errors=True)
    return TrlRun(
        prepared.tokenization, trainer.train_dataset, float(output.training_loss), int(output.global_step)
    )


def run_summary(run: TrlRun) -> dict[str, Any]:
    """The run as JSON (for a lineage or a report)."""
    return {
        "final_loss": run.final_loss,
        "steps": run.steps,
        "rows_used": len(run.tokenization.sequences),
        "rows_skipped": len(run.tokenization.skipped),
        "rows_skipped_detail": [asdict(s) for s in run.tokenization.skipped[:20]],
    }
