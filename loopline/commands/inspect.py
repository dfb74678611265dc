"""`loopline inspect EPISODE`: turns, calls, arguments, results, errors, outcome and score."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

console = Console()


def register(app: typer.Typer) -> None:
    app.command("inspect")(inspect)


def inspect(
    episode_id: Annotated[str, typer.Argument(help="Episode id (see `GET /v1/episodes`).")],
    db_url: Annotated[
        str | None,
        typer.Option("--db-url", help="Archive URL (default LOOPLINE_DB_URL).", show_default=False),
    ] = None,
    verify: Annotated[bool, typer.Option(help="Also verify the episode's hash chain.")] = True,
) -> None:
    """Print an episode's timeline from the event archive."""
    from bridge.store import SqlEpisodeReader
    from loopline.inspect import timeline
    from loopline.streams.settings import StreamsSettings
    from schemas import verify_chain

    reader = SqlEpisodeReader(db_url or StreamsSettings().db_url)
    events = [stored.structured for stored in reader.episode_events(episode_id)]
    if not events:
        console.print(f"[red]error:[/] no events for episode {episode_id!r} in the archive")
        raise typer.Exit(1)
    table = Table(title=f"episode {episode_id}", show_lines=False, expand=True)
    for column, kwargs in (
        ("seq", {"justify": "right"}),
        ("t+s", {"justify": "right"}),
        ("event", {}),
        ("what", {}),
        ("detail", {"overflow": "fold", "ratio": 2}),
    ):
        table.add_column(column, **kwargs)
    for row in timeline(events):
        table.add_row(
            str(row.seq), f"{row.offset_s:.3f}", row.kind, row.what, row.detail, style=row.style or None
        )
    console.print(table)
    if verify:
        broken = verify_chain(events)
        console.print(
            "[green]hash chain intact[/]" if broken is None else f"[red]hash chain broken:[/] {broken}"
        )
        if broken is not None:
            raise typer.Exit(1)
