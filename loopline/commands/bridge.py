"""`loopline bridge serve`: the bridge HTTP API, capturing to the outbox and relaying to Kafka."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(help="The production bridge: runtime, capture and HTTP API.", no_args_is_help=True)
console = Console()


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help="Listen address (LOOPLINE_BRIDGE_HOST).", show_default=False)
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Listen port (LOOPLINE_BRIDGE_PORT).", show_default=False)
    ] = None,
    live_url: Annotated[
        str | None, typer.Option(help="Live system base URL (LOOPLINE_BRIDGE_LIVE_URL).", show_default=False)
    ] = None,
) -> None:
    """Serve the bridge API until SIGTERM or Ctrl-C, then drain: stop taking work, let running
    episodes finish (LOOPLINE_BRIDGE_DRAIN_S), close the rest as interrupted, flush the relay."""
    import signal

    from pydantic import ValidationError

    from loopline.bridge.app import build_bridge
    from loopline.bridge.serve import serve_until_signalled
    from loopline.bridge.settings import BridgeSettings

    overrides = {k: v for k, v in {"host": host, "port": port, "live_url": live_url}.items() if v is not None}
    try:
        settings = BridgeSettings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        console.print(f"[red]error:[/] invalid bridge settings: {exc}")
        raise typer.Exit(1) from None
    from loopline.kafka.topics import TopicError, ensure_topics

    try:
        topics = [settings.events_topic, *([settings.checkpoint_topic] if settings.checkpoint_topic else [])]
        ensure_topics(settings.kafka.client_config("admin"), topics, partitions=4)
    except (TopicError, TimeoutError) as exc:
        console.print(
            f"[red]error:[/] {exc} (is the broker at {settings.kafka.bootstrap_servers} up? `loopline up`)"
        )
        raise typer.Exit(1) from None
    from bridge.audit.event_keys import EventKeyError
    from loopline.bridge.app import ReviewUnavailable

    try:
        process = build_bridge(settings)
    except (ReviewUnavailable, EventKeyError) as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None
    if settings.temporal_address is not None:
        console.print(
            f"review: /review and /v1/review over Temporal {settings.temporal_address}, drafts {settings.drafts_dir}"
        )
    console.print(
        f"bridge on http://{settings.host}:{settings.port} (OpenAPI at /docs) · live system {settings.live_url} · "
        f"outbox {settings.state_dir / 'outbox.db'} → {settings.kafka.bootstrap_servers} {settings.events_topic}"
    )
    if process.recovered:
        uncertain = sum(
            1 for e in process.recovered if process.capture.outbox.events(e)[-1]["data"].get("effect_unknown")
        )
        console.print(
            f"[yellow]{len(process.recovered)} episode(s) left open by a crash closed as interrupted; "
            f"{uncertain} with a write of unknown effect, each its own high edge case to check[/]"
        )
    try:
        signals = serve_until_signalled(process.app(), settings.host, settings.port, grace_s=settings.drain_s)
    finally:
        report = process.drain(settings.drain_s)
    console.print(
        f"stopped ({', '.join(signal.Signals(s).name for s in signals) or 'server exit'}): {report.finished} "
        f"episode(s) finished, {len(report.interrupted)} closed as interrupted, {report.sessions_closed} gateway "
        f"episode(s) aborted; "
        + ("relay drained" if report.delivered else "relay not fully drained; the outbox keeps the rest")
    )
