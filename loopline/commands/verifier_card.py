"""`loopline verifiers report`: the verifier card from a real run, as tables or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)


def report(
    json_: Annotated[bool, typer.Option("--json", help="Print the card as JSON.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the generated task sets.")] = 0,
    per_carc: Annotated[int, typer.Option(help="rcm-base tasks per CARC row.")] = 19,
    per_kind: Annotated[int, typer.Option(help="rcm-edge tasks per edge kind.")] = 8,
    workers: Annotated[int, typer.Option(help="Processes for mutants and exploits.")] = 2,
    db_url: Annotated[
        str | None,
        typer.Option(
            "--db-url", help="Archive with expert labels and outcomes (optional).", show_default=False
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON card here.")] = None,
) -> None:
    """The verifier card: validation, expert set, mutation score, exploits, agreement, outcomes.

    Exits 1 when the admitted verifier misses a bar (the card says which)."""
    from loopline.card.build import build_card, write_json
    from loopline.card.render import render

    def progress(step: str) -> None:
        err_console.print(f"[dim]{step}…[/]")

    card = build_card(
        seed=seed, per_carc=per_carc, per_kind=per_kind, workers=workers, db_url=db_url, progress=progress
    )
    if out is not None:
        write_json(card, out)
    if json_:
        typer.echo(card.model_dump_json(indent=2))
    else:
        render(card, console)
    if card.failing:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Mount `report` on the `verifiers` sub-app."""
    app.command("report")(report)
