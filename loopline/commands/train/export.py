"""`loopline train export`: a written dataset as a file OpenAI's fine-tuning or TRL takes as it is."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console()


class Format(StrEnum):
    """The export formats (`training.data.export`)."""

    openai = "openai"
    trl = "trl"


def export(
    dataset: Annotated[Path, typer.Argument(help="The dataset folder (data.jsonl + manifest.json).")],
    format_: Annotated[Format, typer.Option("--format", help="openai (fine-tuning JSONL) or trl.")],
    out: Annotated[Path, typer.Option("--out", help="The JSONL file to write.")],
) -> None:
    """Write a dataset as OpenAI chat fine-tuning lines or TRL conversational rows, after checking
    every line against the format's schema and every call against its tool's strict schema."""
    from training.data.builder import DatasetError, load_dataset
    from training.data.export import ExportError, write_export

    try:
        rows = load_dataset(dataset).rows
        written = write_export(rows, format_.value, out)
    except (DatasetError, ExportError) as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    console.print(f"{written} {format_.value} lines written to {out}")
