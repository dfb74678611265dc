"""The `loopline` command: one typer app composed of one sub-app per concern.

Each sub-command lives in `loopline/commands/<name>.py` and imports its heavy dependencies lazily,
so `loopline --help` stays fast.
"""

from __future__ import annotations

import typer

from loopline.commands import adapters as adapters_cmd
from loopline.commands import bridge as bridge_cmd
from loopline.commands import demo as demo_cmd
from loopline.commands import envs as envs_cmd
from loopline.commands import inspect as inspect_cmd
from loopline.commands import interop as interop_cmd
from loopline.commands import promote as promote_cmd
from loopline.commands import sandbox as sandbox_cmd
from loopline.commands import schemas as schemas_cmd
from loopline.commands import serve_policy as serve_policy_cmd
from loopline.commands import stack as stack_cmd
from loopline.commands import streams as streams_cmd
from loopline.commands import train as train_cmd
from loopline.commands import verifier_card as verifier_card_cmd
from loopline.commands import verifiers as verifiers_cmd
from loopline.commands import workflows as workflows_cmd

app = typer.Typer(
    name="loopline",
    help="Loopline: run agents against live APIs, capture every event, and improve them.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.add_typer(schemas_cmd.app, name="schemas")
app.add_typer(sandbox_cmd.app, name="sandbox")
stack_cmd.register(app)
app.add_typer(envs_cmd.app, name="envs")
verifier_card_cmd.register(verifiers_cmd.app)
app.add_typer(verifiers_cmd.app, name="verifiers")
streams_cmd.register(app)
inspect_cmd.register(app)
app.add_typer(bridge_cmd.app, name="bridge")
demo_cmd.register(app)
app.add_typer(workflows_cmd.app, name="workflows")
app.add_typer(promote_cmd.app, name="promote")
app.add_typer(train_cmd.app, name="train")
serve_policy_cmd.register(app, train_cmd.app)
app.add_typer(adapters_cmd.app, name="adapters")
app.add_typer(interop_cmd.export_app, name="export")
app.add_typer(interop_cmd.import_app, name="import")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
