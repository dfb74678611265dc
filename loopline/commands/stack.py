"""`loopline up | down | status | logs`: the embedded stack (SeaweedFS, Tansu, Temporal) on loopback.

Settings come from `LOOPLINE_*` variables (see `loopline.stack.settings.StackSettings`); options given
here override them. Every failure the user can fix is one line on stderr and exit code 1.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:
    from loopline.stack.settings import StackSettings

console = Console()
err_console = Console(stderr=True)

StateDir = Annotated[
    Path | None,
    typer.Option(
        "--state-dir", help="State folder (default .loopline, or LOOPLINE_STATE_DIR).", show_default=False
    ),
]
COMPONENTS = ("seaweedfs", "tansu", "temporal", "postgres")


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(1)


def _settings(**overrides: Any) -> StackSettings:
    """StackSettings from the environment with the given (non-None) CLI options on top."""
    from pydantic import ValidationError

    from loopline.stack.settings import StackSettings

    given = {key: value for key, value in overrides.items() if value is not None}
    ports = given.pop("ports", {})
    try:
        base = StackSettings()
        merged = {**base.model_dump(exclude_unset=False), **given}
        merged["ports"] = {**base.ports.model_dump(), **ports}
        return StackSettings.model_validate(merged)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'settings'}: {error['msg']}"
            for error in exc.errors()
        )
        raise _fail(f"invalid settings: {problems}") from None


def up(
    state_dir: StateDir = None,
    broker_storage: Annotated[
        str | None,
        typer.Option("--broker-storage", help="s3 (durable, default) or memory.", show_default=False),
    ] = None,
    ports: Annotated[
        str | None,
        typer.Option("--ports", help="fixed (default ports) or auto (free ports).", show_default=False),
    ] = None,
    kafka_port: Annotated[int | None, typer.Option("--kafka-port", help="Kafka port (fixed mode).")] = None,
    temporal_port: Annotated[
        int | None, typer.Option("--temporal-port", help="Temporal port (fixed mode).")
    ] = None,
    ui: Annotated[bool | None, typer.Option("--ui/--no-ui", help="Serve the Temporal Web UI.")] = None,
    external: Annotated[
        bool | None, typer.Option("--external", help="Use an existing Kafka and Temporal; start nothing.")
    ] = None,
    bootstrap_servers: Annotated[
        str | None, typer.Option("--bootstrap-servers", help="Kafka of the external stack.")
    ] = None,
    temporal_address: Annotated[
        str | None, typer.Option("--temporal-address", help="Temporal of the external stack.")
    ] = None,
    timeout: Annotated[float | None, typer.Option("--timeout", help="Seconds to wait for readiness.")] = None,
    sql: Annotated[
        str | None,
        typer.Option(
            "--sql",
            help="sqlite (default: the archive is a file) or postgres (a cluster in the stack).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Start the stack and wait until it really works (or report the one already running)."""
    port_overrides = {"kafka": kafka_port, "temporal": temporal_port}
    settings = _settings(
        state_dir=state_dir,
        broker_storage=broker_storage,
        port_mode=ports,
        ports={key: value for key, value in port_overrides.items() if value is not None},
        temporal_ui=ui,
        external=external,
        bootstrap_servers=bootstrap_servers,
        temporal_address=temporal_address,
        ready_timeout_s=timeout,
        sql=sql,
    )
    from loopline import stack
    from loopline.stack.report import render_up

    try:
        with console.status("starting the stack", spinner="dots") as spinner:
            result = stack.up(settings, progress=lambda message: spinner.update(message))
            current = stack.status(settings, probe=False)
    except stack.StackError as exc:
        raise _fail(str(exc)) from None
    console.print(render_up(result, current, settings.state_dir))


def down(state_dir: StateDir = None) -> None:
    """Stop the processes `up` started (only those, by pid, verified) and forget them."""
    settings = _settings(state_dir=state_dir)
    from loopline import stack
    from loopline.stack.report import render_down

    try:
        with console.status("stopping the stack", spinner="dots"):
            result = stack.down(settings)
    except stack.StackError as exc:
        raise _fail(str(exc)) from None
    console.print(render_down(result, settings.state_dir))


def status(
    state_dir: StateDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
) -> None:
    """Running, stopped or stale; and whether Kafka and Temporal answer. Exit 0 running, 3 stopped, 1 else."""
    settings = _settings(state_dir=state_dir)
    from loopline import stack
    from loopline.stack.report import render_status

    try:
        # No spinner around JSON: scripts parse stdout.
        waiting = nullcontext() if as_json else console.status("checking the stack", spinner="dots")
        with waiting:
            result = stack.status(settings)
    except stack.StackError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        payload = {
            "overall": result.overall,
            "state": result.state.model_dump(mode="json") if result.state else None,
            "components": [
                {"name": c.name, "state": c.state, "pid": c.pid, "endpoint": c.endpoint, "detail": c.detail}
                for c in result.components
            ],
        }
        typer.echo(json.dumps(payload, indent=2))
    else:
        console.print(render_status(result, settings.state_dir))
    exit_codes: dict[str, int] = {"running": 0, "stopped": 3}
    raise typer.Exit(exit_codes.get(result.overall, 1))


def logs(
    component: Annotated[
        str | None,
        typer.Argument(help="seaweedfs, tansu, temporal or postgres (default: all).", show_default=False),
    ] = None,
    lines: Annotated[int, typer.Option("-n", "--lines", help="How many lines to show from the end.")] = 20,
    follow_: Annotated[bool, typer.Option("-f", "--follow", help="Keep printing new lines.")] = False,
    state_dir: StateDir = None,
) -> None:
    """Show the last lines of the components' logs, and follow them with -f."""
    settings = _settings(state_dir=state_dir)
    from loopline.stack.logs import follow, tail_lines
    from loopline.stack.state import StackLayout

    if component is not None and component not in COMPONENTS:
        raise _fail(f"unknown component {component!r}; choose one of {', '.join(COMPONENTS)}")
    layout = StackLayout(settings.state_dir)
    names = [component] if component else [name for name in COMPONENTS if layout.log_file(name).exists()]
    if not names or not any(layout.log_file(name).exists() for name in names):
        raise _fail(f"no logs in {layout.root / 'logs'}; run `loopline up` first")
    prefixed = len(names) > 1
    for name in names:
        for line in tail_lines(layout.log_file(name), lines):
            _echo(name, line, prefixed)
    if follow_:
        try:
            for name, line in follow([(name, layout.log_file(name)) for name in names]):
                _echo(name, line, prefixed)
        except KeyboardInterrupt:
            return


def _echo(name: str, line: str, prefixed: bool) -> None:
    # typer.echo, not rich: log lines carry their own brackets and ANSI codes.
    typer.echo(f"{name:>9} | {line}" if prefixed else line)


def register(app: typer.Typer) -> None:
    """Add `up`, `down`, `status` and `logs` to the top level of the `loopline` app."""
    app.command("up")(up)
    app.command("down")(down)
    app.command("status")(status)
    app.command("logs")(logs)
