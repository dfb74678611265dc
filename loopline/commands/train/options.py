"""The options and helpers the `loopline train` commands share: task-set loading, seeds, the
progress bar and the base model's folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from training.data import LoadedTaskSet
    from training.release.manager import ReleaseManager

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
DbUrl = Annotated[
    str | None,
    typer.Option(
        "--db-url", envvar="LOOPLINE_RELEASE_DB_URL", help="Adapter registry (default STATE/release.db)."
    ),
]
Publish = Annotated[
    bool,
    typer.Option(
        "--publish/--no-publish",
        envvar="LOOPLINE_RELEASE_PUBLISH",
        help="Also send the registry's events to Kafka, MACed with the release key (LOOPLINE_KAFKA_*, "
        "LOOPLINE_EVENTS_TOPIC, LOOPLINE_EVENT_KEYS_FILE), for the stream worker to archive.",
    ),
]
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


def registry_or_exit(state: Path, db_url: str | None, publish: bool) -> ReleaseManager:
    """The release registry the command records in; one clear line and exit 2 when `--publish` is
    asked for and cannot be honoured."""
    from loopline.release.registry import PublishUnavailable, open_registry

    try:
        return open_registry(state, db_url, publish)
    except PublishUnavailable as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None


def loop_bar(bar: Progress, job: TaskID, report: object) -> None:
    from training.loop import StepReport

    assert isinstance(report, StepReport)
    info = f"loss {report.loss:.4f}  {report.examples_per_s:.0f} ex/s"
    bar.update(job, completed=report.step, total=report.total, info=info)


def stage_bars(bar: Progress) -> Callable[[str, int, int], None]:
    """A `progress(stage, done, total)` callback that draws one bar per stage on `bar`."""
    stages: dict[str, TaskID] = {}

    def stage(name: str, done: int, total: int) -> None:
        if name not in stages:
            stages[name] = bar.add_task(name, total=total, info="")
        bar.update(stages[name], completed=done)

    return stage
