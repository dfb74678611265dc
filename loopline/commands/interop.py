"""`loopline export atif|otel` and `loopline import atif`: the archive in the formats other stacks
read, and trajectories from them re-scored by our verifiers (docs/interop.md)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

export_app = typer.Typer(
    help="Export archived episodes for other tools (ATIF, OpenTelemetry).", no_args_is_help=True
)
import_app = typer.Typer(help="Import trajectories from other stacks.", no_args_is_help=True)
console = Console()
err_console = Console(stderr=True)

DbUrl = Annotated[
    str | None, typer.Option("--db-url", help="Archive URL (default LOOPLINE_DB_URL).", show_default=False)
]
Episode = Annotated[str | None, typer.Option("--episode", help="One episode id.", show_default=False)]
Since = Annotated[
    datetime | None,
    typer.Option(
        "--since", help="Every episode with an event at or after this time (ISO 8601).", show_default=False
    ),
]


def _fail(message: str, code: int = 2) -> typer.Exit:
    err_console.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def _events(db_url: str | None, episode: str | None, since: datetime | None) -> list:  # type: ignore[type-arg]
    from loopline.interop.archive import ArchiveMissing, archived_events
    from loopline.streams.settings import StreamsSettings

    if (episode is None) == (since is None):
        raise _fail("name one --episode or a --since time")
    try:
        return archived_events(db_url or StreamsSettings().db_url, episode=episode, since=since)
    except ArchiveMissing as exc:
        raise _fail(str(exc)) from None


@export_app.command("atif")
def export_atif(
    out: Annotated[Path, typer.Option("--out", help="Folder for the trajectories (<episode>.json each).")],
    episode: Episode = None,
    since: Since = None,
    db_url: DbUrl = None,
) -> None:
    """Write archived episodes as ATIF v1.7 trajectories, each validated against the published schema."""
    from loopline.interop.archive import episode_streams
    from loopline.interop.atif.export import episode_trajectory
    from loopline.interop.atif.schema import atif_problems

    streams = episode_streams(_events(db_url, episode, since))
    if not streams:
        raise _fail("no episode in the archive matches", 1)
    out.mkdir(parents=True, exist_ok=True)
    for stream in streams:
        doc = json.loads(json.dumps(episode_trajectory(stream), default=str))
        problems = atif_problems(doc)
        if problems:
            raise _fail(
                f"episode {stream[0].episodeid} does not make a valid trajectory: {'; '.join(problems)}", 1
            )
        (out / f"{stream[0].episodeid}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    console.print(f"{len(streams)} ATIF v1.7 trajectories written to {out}")


@export_app.command("otel")
def export_otel(
    endpoint: Annotated[
        str,
        typer.Option("--endpoint", help="OTLP/HTTP traces endpoint, e.g. http://collector:4318/v1/traces."),
    ],
    episode: Episode = None,
    since: Since = None,
    db_url: DbUrl = None,
    service: Annotated[
        str, typer.Option("--service", help="service.name of the traces.")
    ] = "loopline-bridge",
) -> None:
    """Send archived episodes as OpenTelemetry traces (GenAI semantic conventions v1.44.0), one per episode."""
    from loopline.interop.archive import episode_streams
    from loopline.interop.otel.export import ExportFailed, send_traces
    from loopline.interop.otel.spans import episode_trace

    plans = [episode_trace(stream) for stream in episode_streams(_events(db_url, episode, since))]
    if not plans:
        raise _fail("no episode in the archive matches", 1)
    try:
        sent = send_traces(plans, endpoint, service=service)
    except ExportFailed as exc:
        raise _fail(str(exc), 1) from None
    console.print(f"{len(plans)} traces ({sent} spans) sent to {endpoint}")


@import_app.command("atif")
def import_atif(
    files: Annotated[list[Path], typer.Argument(help="ATIF trajectory files (.json).")],
    task_set: Annotated[
        list[str],
        typer.Option("--task-set", "-t", help="Tasks to match: NAME[@VERSION], a built-in set, or a .jsonl."),
    ],
    seeds: Annotated[str, typer.Option("--seeds", help="Seeds of built-in sets: `0`, `1,2` or `1-5`.")] = "0",
    root: Annotated[Path, typer.Option("--root", help="Task-set registry folder.")] = Path(
        ".loopline/tasksets"
    ),
    events_out: Annotated[
        Path | None, typer.Option("--events-out", help="Write the replayed episodes' events here (JSONL).")
    ] = None,
) -> None:
    """Map each trajectory onto a task and re-score it with the task's verifier; exit 1 when a
    re-score disagrees with the verdict a Loopline export recorded."""
    from loopline.commands.train.options import load_sets, parse_seeds
    from loopline.interop.atif.imports import AtifImportError, import_trajectory
    from schemas.codec import to_json

    tasks = [t for s in load_sets(task_set, root, parse_seeds(seeds)) for t in s.tasks]
    table = Table(title=f"ATIF import: {len(files)} trajectories, {len(tasks)} tasks")
    for column in ("trajectory", "task", "score", "passed", "recorded"):
        table.add_column(column)
    disagree, lines = 0, []
    for path in files:
        try:
            found = import_trajectory(json.loads(path.read_text()), tasks)
        except (OSError, ValueError, AtifImportError) as exc:
            raise _fail(f"{path}: {exc}") from None
        if found.verdict is None:
            table.add_row(found.trajectory_id, f"[yellow]{found.unmatched}[/]", "", "", "")
            continue
        same = found.recorded is None or found.recorded == found.verdict
        disagree += not same
        recorded = (
            "—" if found.recorded is None else ("same" if same else f"[red]{found.recorded.score:.2f}[/]")
        )
        table.add_row(
            found.trajectory_id,
            str(found.task_id),
            f"{found.verdict.score:.2f}",
            str(found.verdict.passed),
            recorded,
        )
        if found.record is not None:
            lines += [to_json(e).decode() for e in found.record.events]
    console.print(table)
    if events_out is not None:
        events_out.write_text("".join(line + "\n" for line in lines))
    if disagree:
        raise _fail(f"{disagree} re-scores disagree with the recorded verdict", 1)
