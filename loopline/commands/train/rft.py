"""`loopline train rft`: rejection-sampling fine-tuning. Sample k rollouts per task through the
environment with the current policy at a temperature, keep what the verifier passes, build a dataset
of them (the same format, PHI surrogates, replay mix and manifest as `train dataset`), and train a
LoRA on it with `train sft`."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from loopline.commands.train.options import (
    DEFAULT_ROOT,
    DEFAULT_STATE,
    BaseModel,
    Families,
    Replay,
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
)
from loopline.commands.train.sft import sft


def rft(
    adapter_id: Annotated[str, typer.Argument(help="Adapter id (its folder under STATE/adapters).")],
    task_set: TaskSets = None,
    families: Families = "",
    seeds: Seeds = "0",
    replay: Replay = None,
    replay_ratio: Annotated[
        float, typer.Option("--replay-ratio", help="Share of rows from the replay buffer.")
    ] = 0.5,
    policy_ref: Annotated[
        str, typer.Option("--policy", help="The policy that samples: `base` or an adapter id or folder.")
    ] = "base",
    k: Annotated[int, typer.Option("--k", help="Rollouts per task.")] = 4,
    temperature: Annotated[float, typer.Option("--temperature", help="Sampling temperature.")] = 1.0,
    sample_seed: Annotated[int, typer.Option("--sample-seed", help="Seed of the first draw.")] = 0,
    base_model: BaseModel = None,
    r: Annotated[int, typer.Option("--r", help="LoRA rank.")] = 16,
    alpha: Annotated[int, typer.Option("--alpha", help="LoRA alpha.")] = 32,
    epochs: Annotated[int, typer.Option("--epochs")] = 4,
    lr: Annotated[float, typer.Option("--lr")] = 2e-3,
    batch_size: Annotated[int, typer.Option("--batch-size")] = 32,
    seed: Annotated[int, typer.Option("--seed", help="Training seed.")] = 0,
    state: State = DEFAULT_STATE,
    root: Root = DEFAULT_ROOT,
) -> None:
    """Rejection-sampling fine-tuning: k sampled rollouts per task, the verifier-passed ones as a
    dataset (`rft-ID`), and a LoRA adapter trained on it."""
    from training.data import write_dataset
    from training.data.builder import DatasetError, build_dataset
    from training.data.sources import only_families
    from training.policies import load_policy
    from training.registry import adapter_folder
    from training.rft import RftSettings, SamplingPolicy, rft_spec, sample_rollouts

    base = base_folder(state, base_model)
    seed_list = parse_seeds(seeds)
    primary = load_sets(task_set or [], root, seed_list)
    if families:
        primary = [only_families(s, parse_families(families)) for s in primary]
    if not any(s.tasks for s in primary):
        console.print("[red]no tasks to sample[/]: give --task-set (and --families that match)")
        raise typer.Exit(2)
    try:
        settings = RftSettings(k=k, temperature=temperature, seed=sample_seed)
        adapter = None if policy_ref == "base" else adapter_folder(state, policy_ref)
    except (ValueError, FileNotFoundError) as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    policy = load_policy(base, adapter, name=policy_ref)
    if not isinstance(policy, SamplingPolicy):
        console.print(f"[red]{policy.ref.model} cannot sample at a temperature[/]")
        raise typer.Exit(2)
    total = settings.k * sum(len(s.tasks) for s in primary)
    with progress_bar() as bar:
        job = bar.add_task("sampling", total=total, info=f"k={k}, T={temperature}")
        samples = sample_rollouts(policy, primary, settings, on_record=lambda _: bar.advance(job))
    name = f"rft-{adapter_id}"
    spec = rft_spec(
        name,
        primary,
        samples,
        settings,
        policy=policy_ref,
        replay=load_sets(replay or [], root, seed_list),
        replay_ratio=replay_ratio,
        replay_seed=sample_seed,
    )
    sampling = dict(spec.sampling or {})
    table = Table(title=f"rejection sampling with {policy_ref}")
    for column in ("tasks", "rollouts", "passed", "kept (distinct)", "tasks with a pass"):
        table.add_column(column, justify="right")
    table.add_row(
        *(str(sampling[key]) for key in ("tasks", "rollouts", "passed", "kept", "tasks_with_a_pass"))
    )
    console.print(table)
    if not sampling["kept"]:
        console.print("[red]the verifier passed no sampled rollout[/]: nothing to learn from")
        raise typer.Exit(1)
    try:
        folder = write_dataset(build_dataset(spec), state / "datasets")
    except DatasetError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    console.print(f"dataset {name} written to {folder}")
    sft(
        adapter_id,
        str(folder),
        base_model=base_model,
        r=r,
        alpha=alpha,
        epochs=epochs,
        lr=lr,
        batch_size=batch_size,
        seed=seed,
        checkpoint_every=50,
        parent=None if policy_ref == "base" else policy_ref,
        packing=False,
        max_length=16384,
        state=state,
    )
