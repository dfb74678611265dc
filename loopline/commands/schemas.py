"""`loopline schemas export|check`: the published JSON Schemas of every contract."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

app = typer.Typer(help="Published JSON Schemas of the event and task contracts.", no_args_is_help=True)
console = Console()


@app.command()
def export(
    out: Path = typer.Option(None, "--out", help="Target folder (default: schemas/jsonschema)."),
) -> None:
    """Write JSON Schema for every event type, the envelope and the task models."""
    from schemas.export import EXPORT_DIR, write_schemas

    paths = write_schemas(out or EXPORT_DIR)
    console.print(f"wrote {len(paths)} schemas to {out or EXPORT_DIR}")


@app.command()
def check() -> None:
    """Exit non-zero when the committed schemas differ from the code."""
    from schemas.export import diff_schemas

    changed = diff_schemas()
    if changed:
        console.print(f"[red]schemas differ from the code:[/] {', '.join(changed)}")
        console.print("run `loopline schemas export` if the change is deliberate (and versioned)")
        raise typer.Exit(1)
    console.print("schemas match the code")
