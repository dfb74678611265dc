"""The `loopline` command: one typer app composed of one sub-app per concern.

Each sub-command lives in `loopline/commands/<name>.py` and imports its heavy dependencies lazily,
so `loopline --help` stays fast.
"""

from __future__ import annotations

import typer

from loopline.commands import schemas as schemas_cmd

app = typer.Typer(
    name="loopline",
    help="Loopline: run agents against live APIs, capture every event, and improve them.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.add_typer(schemas_cmd.app, name="schemas")


def main() -> None:
    app()
