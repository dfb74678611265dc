"""`loopline train dataset`: PHI-safe chat datasets from task sets (more commands: see docs/training.md).

Heavy imports (torch, peft, transformers) happen inside the commands, so `loopline --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

if TYPE_CHECKING:
    from training.data import LoadedTaskSet

app = typer.Typer(help="Training: datasets, LoRA fine-tuning, evaluation and the gate.", no_args_is_help=True)
console = Console()

DEFAULT_ROOT = Path(".loopline/tasksets")
DEFAULT_DATASETS = Path(".loopline/datasets")

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
Seeds = Annotated[
    str, typer.Option("--seeds", help="Seeds of built-in (generated) sets: `0`, `1,2,5` or `1-20`.")
]


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
    root: Root = DEFAULT_ROOT,
    out: Annotated[Path, typer.Option("--out", help="Datasets folder.")] = DEFAULT_DATASETS,
) -> None:
    """Build a PHI-safe chat dataset (messages + tools) from task sets, with a replay mix and a manifest."""
    from training.data import DatasetSpec, build_dataset, write_dataset
    from training.data.builder import DatasetError

    seed_list = parse_seeds(seeds)
    primary = load_sets(task_set or [], root, seed_list)
    buffer = load_sets(replay or [], root, seed_list)
    try:
        spec = DatasetSpec(
            name=name,
            primary=tuple(primary),
            replay=tuple(buffer),
            replay_ratio=replay_ratio,
            seed=sample_seed,
            alternatives=not gold_only,
        )
        with progress_bar() as bar:
            job = bar.add_task("rendering", total=sum(len(s.tasks) for s in (*primary, *buffer)), info="")
            built = build_dataset(spec, progress=lambda done, total: bar.update(job, completed=done))
        folder = write_dataset(built, out)
    except DatasetError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    manifest = built.manifest
    table = Table(title=f"dataset {name}: {manifest.rows} rows, sha256 {manifest.content_hash[:16]}")
    for column in ("source", "role", "tasks", "rows"):
        table.add_column(column)
    for source in manifest.sources:
        table.add_row(source.label, source.role, str(source.tasks), str(source.rows))
    console.print(table)
    console.print(f"PHI values replaced by surrogates: {manifest.phi.get('replaced')}; written to {folder}")
