"""`loopline train sft`: LoRA supervised fine-tuning of the base model on a dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from loopline.commands.train.options import (
    DEFAULT_STATE,
    BaseModel,
    DbUrl,
    Publish,
    State,
    base_folder,
    console,
    loop_bar,
    progress_bar,
    registry_or_exit,
    stage_bars,
)


def sft(
    adapter_id: Annotated[str, typer.Argument(help="Adapter id (its folder under STATE/adapters).")],
    dataset_name: Annotated[
        str, typer.Option("--dataset", help="Dataset folder, or a name under STATE/datasets.")
    ],
    base_model: BaseModel = None,
    r: Annotated[int, typer.Option("--r", help="LoRA rank.")] = 16,
    alpha: Annotated[int, typer.Option("--alpha", help="LoRA alpha.")] = 32,
    epochs: Annotated[int, typer.Option("--epochs")] = 4,
    lr: Annotated[float, typer.Option("--lr")] = 2e-3,
    batch_size: Annotated[int, typer.Option("--batch-size")] = 32,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    checkpoint_every: Annotated[int, typer.Option("--checkpoint-every", help="Optimizer steps.")] = 50,
    parent: Annotated[str | None, typer.Option("--parent", help="Champion adapter it follows.")] = None,
    packing: Annotated[bool, typer.Option("--packing", help="Pack sequences (causal LMs).")] = False,
    max_length: Annotated[int, typer.Option("--max-length", help="Longest sequence (causal LMs).")] = 16384,
    state: State = DEFAULT_STATE,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """LoRA supervised fine-tuning (peft) of the base model on a dataset; resumes a killed run. The
    finished adapter opens its stream in the adapter registry with `adapter.trained`."""
    from training.loop import LoopConfig
    from training.lora import LLAMA_TARGETS, LoraSettings
    from training.policies import STRUCTURED, model_kind
    from training.registry import adapters_root, record_trained

    # before training, so a registry that cannot publish costs no training time
    registry = registry_or_exit(state, db_url, publish)
    base = base_folder(state, base_model)
    data = Path(dataset_name)
    if not (data / "manifest.json").is_file():
        data = state / "datasets" / dataset_name
    if not (data / "manifest.json").is_file():
        console.print(f"[red]no dataset {dataset_name}[/] (a folder, or a name under {state / 'datasets'})")
        raise typer.Exit(2)
    out = adapters_root(state) / adapter_id
    if (out / "adapter_config.json").is_file():
        console.print(f"[red]adapter {adapter_id} already exists[/] in {out}; choose another id")
        raise typer.Exit(2)
    loop = LoopConfig(
        epochs=epochs, batch_size=batch_size, lr=lr, seed=seed, checkpoint_every=checkpoint_every
    )
    structured = model_kind(base) == STRUCTURED
    settings = (
        LoraSettings(r=r, alpha=alpha)
        if structured
        else LoraSettings(r=r, alpha=alpha, target_modules=LLAMA_TARGETS, modules_to_save=())
    )
    with progress_bar() as bar:
        stage = stage_bars(bar)
        job = bar.add_task("training", total=None, info="")
        if structured:
            from training.structured.sft import sft_structured

            lineage = sft_structured(
                base,
                data,
                out,
                settings=settings,
                loop=loop,
                parent_adapter_id=parent,
                on_step=lambda report: loop_bar(bar, job, report),
                progress=stage,
            )
        else:
            from training.hf.sft import sft_hf

            lineage = sft_hf(
                base,
                data,
                out,
                settings=settings,
                loop=loop,
                parent_adapter_id=parent,
                max_length=max_length,
                packing=packing,
                on_step=lambda report: loop_bar(bar, job, report),
            )
    try:
        record_trained(registry, out)
    except RuntimeError as exc:  # stored; the publisher failed
        console.print(f"[red]adapter written, but its adapter.trained event was not delivered ({exc})[/]")
        raise typer.Exit(2) from None
    training_ = lineage["training"]
    console.print(
        f"adapter {adapter_id}: {lineage['steps']} examples from {lineage['rows_used']} rows "
        f"({lineage['rows_skipped']} left out{_reasons(lineage)}), final loss {training_['final_loss']:.4f}, "
        f"{training_['seconds']:.0f} s; written to {out}"
    )


def _reasons(lineage: dict[str, Any]) -> str:
    """`: 2 too-long, 1 not-prefix` when the lineage counts rows left out by reason."""
    by_reason = lineage.get("rows_skipped_by_reason") or {}
    return (": " + ", ".join(f"{n} {reason}" for reason, n in by_reason.items())) if by_reason else ""
