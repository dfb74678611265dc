"""Rich renderings of `up`, `status` and `down` results for the CLI: what runs where."""

from __future__ import annotations

from pathlib import Path

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from loopline.stack.health import StackStatus
from loopline.stack.lifecycle import DownResult, UpResult
from loopline.stack.state import StackState

_STYLE = {
    "running": "green",
    "reachable": "green",
    "stopped": "yellow",
    "stale": "red",
    "unreachable": "red",
    "degraded": "red",
}


def _short(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def endpoints(state: StackState) -> Table:
    """Where clients connect, one line each."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("Kafka bootstrap servers", state.endpoints.bootstrap_servers)
    table.add_row("Temporal address", state.endpoints.temporal_address)
    if state.endpoints.temporal_ui:
        table.add_row("Temporal Web UI", state.endpoints.temporal_ui)
    if state.endpoints.s3:
        table.add_row("S3 (SeaweedFS)", state.endpoints.s3)
    if state.endpoints.sql_url:
        table.add_row("SQL (the archive)", state.endpoints.sql_url)
    if state.broker_storage:
        durable = "durable, on SeaweedFS" if state.broker_storage == "s3" else "lost on `loopline down`"
        table.add_row("Broker storage", f"{state.broker_storage} ({durable})")
    return table


def status_table(status: StackStatus) -> Table:
    """One row per component: state, pid, endpoint, and a detail column only when there is one."""
    with_detail = any(comp.detail for comp in status.components)
    table = Table(show_edge=False, header_style="bold")
    for column in ("component", "state", "pid", "endpoint", *(["detail"] if with_detail else [])):
        table.add_column(column, overflow="fold")
    for comp in status.components:
        row: list[str | Text] = [
            comp.name,
            Text(comp.state, style=_STYLE.get(comp.state, "")),
            str(comp.pid) if comp.pid else "",
            comp.endpoint or "",
        ]
        table.add_row(*row, *([comp.detail] if with_detail else []))
    return table


def _logs_hint(state_dir: Path) -> Text:
    return Text(
        f"logs in {_short(state_dir / 'logs')}: `loopline logs [seaweedfs|tansu|temporal|postgres] -f`\n"
        f"for the bridge, the stream worker and the CLI: `set -a; . {_short(state_dir / 'stack.env')}; set +a`",
        style="dim",
    )


def render_up(result: UpResult, status: StackStatus, state_dir: Path) -> RenderableType:
    """The answer to `loopline up`."""
    if result.state.mode == "external":
        headline = Text("Using the external stack (nothing started).", style="bold green")
    elif result.already_running:
        headline = Text(f"The stack in {_short(state_dir)} is already running.", style="bold green")
    else:
        headline = Text(
            f"Stack ready in {result.elapsed_s:.1f} s (state in {_short(state_dir)}).", style="bold green"
        )
    parts: list[RenderableType] = [headline, status_table(status), endpoints(result.state)]
    if result.state.mode == "embedded":
        parts.append(_logs_hint(state_dir))
    parts += [Text(note, style="yellow") for note in result.notes]
    return Group(*parts)


def render_status(status: StackStatus, state_dir: Path) -> RenderableType:
    """The answer to `loopline status`."""
    style = _STYLE.get(status.overall, "")
    if status.overall == "stopped":
        return Text(f"stopped: no stack recorded in {_short(state_dir)}; run `loopline up`", style=style)
    head = Text(
        f"{status.overall} ({status.state.mode if status.state else 'unknown'} stack)", style=f"bold {style}"
    )
    parts: list[RenderableType] = [head, status_table(status)]
    if status.state is not None and status.overall == "running":
        parts.append(endpoints(status.state))
    if status.overall == "stale":
        parts.append(Text("the recorded processes are gone; run `loopline down` to clear, or `loopline up`"))
    return Group(*parts)


def render_down(result: DownResult, state_dir: Path) -> RenderableType:
    """The answer to `loopline down`."""
    if result.mode == "none":
        return Text(f"nothing to stop: no stack recorded in {_short(state_dir)}")
    if result.mode == "external":
        return Text("forgot the external stack (nothing was started, nothing stopped)")
    table = Table.grid(padding=(0, 2))
    for name, outcome in result.outcomes.items():
        table.add_row(name, outcome)
    return Group(Text("stack stopped", style="bold"), table)
