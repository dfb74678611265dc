"""`loopline train dataset`: PHI-safe chat datasets from task sets (more commands: see docs/training.md).

Heavy imports (torch, peft, transformers) happen inside the commands, so `loopline --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

if TYPE_CHECKING:
    from training.data import LoadedTaskSet

app = typer.Typer(help="Training: datasets, LoRA fine-tuning, evaluation and the gate.", no_args_is_help=True)
console = Console()

DEFAULT_ROOT = Path(".loopline/tasksets")

TaskSets = Annotated[
    list[str] | None,
    typer.Option(
        "--task-set", "-t", help="Tasks to learn: NAME[@VERSION] in --root, a built-in set, or a .jsonl."
    ),
]
Replay = Annotated[
    list[str] | None,
    typer.Option("--replay", help="Replay buffer task sets, in the same forms (repeatable)."),
]
Root = Annotated[Path, typer.Option("--root", help="Task-set registry folder.")]
State = Annotated[Path, typer.Option("--state", help="State folder (models, adapters, datasets).")]
DEFAULT_STATE = Path(".loopline")
Seeds = Annotated[
    str, typer.Option("--seeds", help="Seeds of built-in (generated) sets: `0`, `1,2,5` or `1-20`.")
]
Families = Annotated[
    str,
    typer.Option("--families", help="Only these task families, comma-separated (edge:multi_carc,carc:16)."),
]


def parse_families(text: str) -> frozenset[str]:
    """`edge:a,edge:b` as a set of family names."""
    return frozenset(f.strip() for f in text.split(",") if f.strip())


def parse_seeds(text: str) -> list[int]:
    """`0`, `1,2,5`, `1-20` (inclusive) or a mix, as a sorted list without repeats."""
    seeds: set[int] = set()
    try:
        for part in filter(None, (p.strip() for p in text.split(","))):
            low, dash, high = part.partition("-")
            seeds.update(range(int(low), int(high) + 1) if dash else [int(low)])
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a list of seeds like 0, 1,2,5 or 1-20") from None
    if not seeds:
        raise typer.BadParameter("no seeds given")
    return sorted(seeds)


def load_sets(specs: list[str], root: Path, seeds: list[int]) -> list[LoadedTaskSet]:
    """Each spec once, or once per seed when it is a built-in (generated) set."""
    from envs.tasksets import TaskSetError
    from training.data import load_task_set

    loaded: list[LoadedTaskSet] = []
    for spec in specs:
        try:
            first = load_task_set(spec, root=root, seed=seeds[0])
            loaded.append(first)
            if first.seed is not None:
                loaded += [load_task_set(spec, root=root, seed=s) for s in seeds[1:]]
        except (TaskSetError, KeyError) as exc:
            console.print(f"[red]cannot load {spec}:[/] {exc}")
            raise typer.Exit(2) from None
    return loaded


def progress_bar() -> Progress:
    """The bar every long training command draws."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(),
        console=console,
    )


@app.command()
def dataset(
    name: Annotated[str, typer.Argument(help="Dataset name (its folder under --out).")],
    task_set: TaskSets = None,
    replay: Replay = None,
    replay_ratio: Annotated[
        float, typer.Option("--replay-ratio", help="Share of rows from the replay buffer.")
    ] = 0.5,
    seeds: Seeds = "0",
    sample_seed: Annotated[int, typer.Option("--sample-seed", help="Seed of the replay sample.")] = 0,
    gold_only: Annotated[
        bool, typer.Option("--gold-only", help="Leave out alternative gold trajectories.")
    ] = False,
    families: Families = "",
    corrupt: Annotated[
        bool, typer.Option("--corrupt", help="Deliberately wrong gold (each task's outcome-changing mutant).")
    ] = False,
    episodes: Annotated[
        list[Path] | None,
        typer.Option(
            "--episodes",
            help="JSONL of archived events: verifier-passed, outcome-confirmed episodes are learned (repeatable).",
        ),
    ] = None,
    from_archive: Annotated[
        list[str] | None,
        typer.Option(
            "--from-archive",
            help="SQL URL of the event archive: its verifier-passed, outcome-confirmed episodes are learned.",
        ),
    ] = None,
    root: Root = DEFAULT_ROOT,
    out: Annotated[
        Path | None, typer.Option("--out", help="Datasets folder (default STATE/datasets).")
    ] = None,
    state: State = DEFAULT_STATE,
) -> None:
    """Build a PHI-safe chat dataset (messages + tools) from task sets, with a replay mix and a manifest."""
    from loopline.interop.archive import archive_episodes
    from training.data import DatasetSpec, build_dataset, write_dataset
    from training.data.builder import DatasetError
    from training.data.production import EpisodeSourceError, episode_set, read_events

    seed_list = parse_seeds(seeds)
    primary = load_sets(task_set or [], root, seed_list)
    if families:
        from training.data.sources import only_families

        primary = [only_families(s, parse_families(families)) for s in primary]
    buffer = load_sets(replay or [], root, seed_list)
    try:
        found = tuple(
            episode_set(read_events(path), label=f"episodes:{path.name}") for path in episodes or []
        ) + tuple(archive_episodes(url) for url in from_archive or [])
        spec = DatasetSpec(
            name=name,
            primary=tuple(primary),
            replay=tuple(buffer),
            replay_ratio=replay_ratio,
            seed=sample_seed,
            alternatives=not gold_only,
            corrupt=corrupt,
            episodes=found,
        )
        with progress_bar() as bar:
            job = bar.add_task("rendering", total=sum(len(s.tasks) for s in (*primary, *buffer)), info="")
            built = build_dataset(spec, progress=lambda done, total: bar.update(job, completed=done))
        folder = write_dataset(built, out or state / "datasets")
    except (DatasetError, EpisodeSourceError) as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    manifest = built.manifest
    table = Table(title=f"dataset {name}: {manifest.rows} rows, sha256 {manifest.content_hash[:16]}")
    for column in ("source", "role", "tasks", "rows"):
        table.add_column(column)
    for source in manifest.sources:
        table.add_row(source.label, source.role, str(source.tasks), str(source.rows))
    console.print(table)
    for source in manifest.sources:
        if source.skipped:
            left = ", ".join(f"{reason}: {count}" for reason, count in source.skipped.items())
            console.print(f"{source.label}: episodes left out ({left})")
    console.print(f"PHI values replaced by surrogates: {manifest.phi.get('replaced')}; written to {folder}")


def _loop_bar(bar: Progress, job: TaskID, report: object) -> None:
    from training.loop import StepReport

    assert isinstance(report, StepReport)
    info = f"loss {report.loss:.4f}  {report.examples_per_s:.0f} ex/s"
    bar.update(job, completed=report.step, total=report.total, info=info)


@app.command()
def bootstrap(
    seeds: Seeds = "1-6",
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over the data.")] = 10,
    d_model: Annotated[int, typer.Option("--d-model", help="Width of the transformer.")] = 96,
    layers: Annotated[int, typer.Option("--layers", help="Transformer layers.")] = 3,
    seed: Annotated[int, typer.Option("--seed", help="Training seed.")] = 0,
    name: Annotated[
        str, typer.Option("--name", help="Model folder name under STATE/models.")
    ] = "rcm-structured",
    state: State = DEFAULT_STATE,
    root: Root = DEFAULT_ROOT,
) -> None:
    """Train the embedded stack's reference policy from scratch (cached: reused when already built)."""
    from training.loop import LoopConfig
    from training.structured.bootstrap import BootstrapSpec
    from training.structured.bootstrap import bootstrap as build

    spec = BootstrapSpec(
        seeds=tuple(parse_seeds(seeds)),
        d_model=d_model,
        layers=layers,
        loop=LoopConfig(epochs=epochs, batch_size=32, lr=2e-3, seed=seed),
    )
    with progress_bar() as bar:
        stages: dict[str, TaskID] = {}

        def stage(name_: str, done: int, total: int) -> None:
            if name_ not in stages:
                stages[name_] = bar.add_task(name_, total=total, info="")
            bar.update(stages[name_], completed=done)

        job = bar.add_task("training", total=None, info="")
        folder = build(
            spec,
            root=state,
            taskset_root=root,
            name=name,
            progress=stage,
            on_step=lambda report: _loop_bar(bar, job, report),
        )
    console.print(f"reference policy ready in {folder}")


BaseModel = Annotated[
    Path | None,
    typer.Option("--base-model", help="Base model folder (default STATE/models/rcm-structured)."),
]


def base_folder(state: Path, base_model: Path | None) -> Path:
    folder = base_model or state / "models" / "rcm-structured"
    if not (folder / "config.json").is_file():
        console.print(
            f"[red]no model in {folder}[/]: run `loopline train bootstrap` first, or pass --base-model"
        )
        raise typer.Exit(2)
    return folder


@app.command()
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
) -> None:
    """LoRA supervised fine-tuning (peft) of the base model on a dataset; resumes a killed run."""
    from training.loop import LoopConfig
    from training.lora import LLAMA_TARGETS, LoraSettings
    from training.policies import STRUCTURED, model_kind
    from training.registry import adapters_root

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
        stages: dict[str, TaskID] = {}

        def stage(name_: str, done: int, total: int) -> None:
            if name_ not in stages:
                stages[name_] = bar.add_task(name_, total=total, info="")
            bar.update(stages[name_], completed=done)

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
                on_step=lambda report: _loop_bar(bar, job, report),
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
                on_step=lambda report: _loop_bar(bar, job, report),
            )
    training_ = lineage["training"]
    console.print(
        f"adapter {adapter_id}: {lineage['steps']} examples from {lineage['rows_used']} rows "
        f"({lineage['rows_skipped']} left out), final loss {training_['final_loss']:.4f}, "
        f"{training_['seconds']:.0f} s; written to {out}"
    )


def _register_evaluation() -> None:
    from loopline.commands import train_eval, train_export

    train_eval.register(app)
    train_export.register(app)


_register_evaluation()
