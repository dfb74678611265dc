"""`loopline train grpo`: group-relative policy optimisation of the structured policy or of a
Hugging Face chat model (`training.hf.grpo`, a LoRA adapter over the tokens it wrote). k sampled
rollouts per task through the environment, scored by the task's verifier; group-relative
advantages (failures teach too); LoRA updates with a KL penalty to the frozen base; several
on-policy rounds. Rejection sampling (`train rft`) stays as the baseline."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from loopline.commands.train.options import (
    DEFAULT_ROOT,
    DEFAULT_STATE,
    BaseModel,
    DbUrl,
    Families,
    Publish,
    Root,
    Seeds,
    State,
    TaskSets,
    base_folder,
    console,
    load_sets,
    parse_families,
    parse_seeds,
    progress_bar,
    registry_or_exit,
)


def grpo(
    adapter_id: Annotated[str, typer.Argument(help="Adapter id (its folder under STATE/adapters).")],
    task_set: TaskSets = None,
    families: Families = "",
    seeds: Seeds = "0",
    k: Annotated[int, typer.Option("--k", help="Rollouts per task (the group).")] = 8,
    rounds: Annotated[int, typer.Option("--rounds", help="On-policy rounds.")] = 4,
    temperature: Annotated[float, typer.Option("--temperature", help="Sampling temperature.")] = 1.0,
    kl: Annotated[float, typer.Option("--kl", help="Weight of the KL penalty to the base.")] = 0.05,
    clip: Annotated[float, typer.Option("--clip", help="PPO clip range of the ratio.")] = 0.2,
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over each round's steps.")] = 2,
    lr: Annotated[float, typer.Option("--lr")] = 1e-3,
    max_new_tokens: Annotated[
        int, typer.Option("--max-new-tokens", help="Tokens a Hugging Face model may write a turn.")
    ] = 256,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Steps per optimizer step.")] = 64,
    seed: Annotated[int, typer.Option("--seed", help="Training and sampling seed.")] = 0,
    threads: Annotated[int, typer.Option("--threads", help="CPU threads (fixed, for equal bits).")] = 1,
    base_model: BaseModel = None,
    r: Annotated[int, typer.Option("--r", help="LoRA rank.")] = 16,
    alpha: Annotated[int, typer.Option("--alpha", help="LoRA alpha.")] = 32,
    state: State = DEFAULT_STATE,
    root: Root = DEFAULT_ROOT,
    db_url: DbUrl = None,
    publish: Publish = False,
) -> None:
    """GRPO of the structured policy (or a Hugging Face chat model) on a task set: k rollouts per task per round through the
    environment, a LoRA adapter updated on group-relative advantages with a KL penalty to the
    base; resumes a killed run from its last round."""
    from training.data.sources import only_families
    from training.grpo import GrpoSettings, RoundReport
    from training.lora import LLAMA_TARGETS, LoraSettings
    from training.policies import STRUCTURED, model_kind
    from training.registry import adapters_root, record_trained
    from training.structured.grpo import grpo_structured

    try:
        settings = GrpoSettings(
            k=k,
            rounds=rounds,
            temperature=temperature,
            kl=kl,
            clip=clip,
            epochs=epochs,
            lr=lr,
            batch_size=batch_size,
            seed=seed,
            threads=threads,
        )
    except ValueError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    registry = registry_or_exit(state, db_url, publish)
    base = base_folder(state, base_model)
    structured = model_kind(base) == STRUCTURED
    primary = load_sets(task_set or [], root, parse_seeds(seeds))
    if families:
        primary = [only_families(s, parse_families(families)) for s in primary]
    if not any(s.tasks for s in primary):
        console.print("[red]no tasks to sample[/]: give --task-set (and --families that match)")
        raise typer.Exit(2)
    out = adapters_root(state) / adapter_id
    if (out / "adapter_config.json").is_file():
        console.print(f"[red]adapter {adapter_id} already exists[/] in {out}; choose another id")
        raise typer.Exit(2)
    table = Table(title=f"GRPO of {base.name}: k={k}, T={temperature}, KL {kl}")
    for column in ("round", "rollouts", "mean reward", "pass rate", "no spread", "KL", "s"):
        table.add_column(column, justify="right")
    per_round = settings.k * sum(len(s.tasks) for s in primary)
    with progress_bar() as bar:
        job = bar.add_task("sampling", total=per_round * settings.rounds, info=f"{rounds} rounds")

        def reported(report: RoundReport) -> None:
            table.add_row(
                str(report.round),
                str(report.rollouts),
                f"{report.mean_reward:.3f}",
                f"{report.pass_rate:.1%}",
                f"{report.groups_without_spread} of {report.groups}",
                f"{report.mean_kl:.4f}",
                f"{report.seconds:.0f}",
            )
            bar.update(job, completed=per_round * (report.round + 1))

        if structured:
            lineage = grpo_structured(
                base,
                primary,
                out,
                settings=settings,
                lora=LoraSettings(r=r, alpha=alpha),
                on_round=reported,
                on_record=lambda _: bar.advance(job),
            )
        else:
            from training.hf.grpo import grpo_hf

            lineage = grpo_hf(
                base,
                primary,
                out,
                settings=settings,
                lora=LoraSettings(r=r, alpha=alpha, target_modules=LLAMA_TARGETS, modules_to_save=()),
                max_new_tokens=max_new_tokens,
                on_round=reported,
                on_record=lambda _: bar.advance(job),
            )
    console.print(table)
    try:
        record_trained(registry, out)
    except RuntimeError as exc:
        console.print(f"[red]adapter written, but its adapter.trained event was not delivered ({exc})[/]")
        raise typer.Exit(2) from None
    training_ = lineage["training"]
    console.print(
        f"adapter {adapter_id}: {settings.rounds} rounds, mean reward "
        f"{training_['mean_reward_first_round']:.3f} -> {training_['mean_reward_last_round']:.3f}, "
        f"{training_['seconds']:.0f} s; written to {out}"
    )
