"""`loopline train dataset`: a PHI-safe chat dataset (messages + tools) from task sets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from loopline.commands.train.options import (
    DEFAULT_ROOT,
    DEFAULT_STATE,
    Families,
    Replay,
    Root,
    Seeds,
    State,
    TaskSets,
    console,
    load_sets,
    parse_families,
    parse_seeds,
    progress_bar,
)


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
