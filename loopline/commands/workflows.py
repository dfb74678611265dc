"""`loopline workflows worker`: the Temporal worker (promotion workflow and activities) for a queue.

Settings come from `LOOPLINE_*` variables (`workflows.settings.WorkflowsSettings`; the broker from
`LOOPLINE_KAFKA_*`); options override them. `--with-starter` also runs the edge-case starter, which
starts one promotion per new edge case in the archive.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console(stderr=True)
app = typer.Typer(help="Temporal workers: promotion of edge cases into tasks.", no_args_is_help=True)


@app.command("worker")
def worker(
    queue: Annotated[str | None, typer.Option(help="Task queue (default LOOPLINE_TASK_QUEUE, cpu).")] = None,
    temporal_address: Annotated[str | None, typer.Option(help="Temporal host:port.")] = None,
    db_url: Annotated[str | None, typer.Option(help="Event archive URL.")] = None,
    drafts_dir: Annotated[Path | None, typer.Option(help="Draft store folder.")] = None,
    tasksets_root: Annotated[Path | None, typer.Option(help="Task-set registry root.")] = None,
    events_topic: Annotated[str | None, typer.Option(help="Topic for task.promoted.")] = None,
    publish_events: Annotated[bool, typer.Option(help="Publish task.promoted to Kafka.")] = True,
    with_starter: Annotated[bool, typer.Option(help="Also start a promotion per new edge case.")] = False,
    rule: Annotated[
        list[str] | None, typer.Option(help="Only promote edge cases of this rule (repeat).")
    ] = None,
) -> None:
    """Run the worker until SIGINT/SIGTERM."""
    import asyncio
    import signal

    from pydantic import ValidationError

    from loopline.kafka.publisher import PROMOTION_SOURCE, signed_publisher
    from loopline.kafka.settings import KafkaSettings
    from workflows.settings import WorkflowsSettings
    from workflows.worker import serve

    overrides = {
        "task_queue": queue,
        "temporal_address": temporal_address,
        "db_url": db_url,
        "drafts_dir": drafts_dir,
        "tasksets_root": tasksets_root,
        "events_topic": events_topic,
    }
    try:
        settings = WorkflowsSettings.model_validate({k: v for k, v in overrides.items() if v is not None})
        training_only = settings.task_queue == settings.gpu_task_queue  # the gpu queue publishes nothing
        publish = (
            signed_publisher(PROMOTION_SOURCE, KafkaSettings(), settings.events_topic)
            if publish_events and not training_only
            else None
        )
    except (ValidationError, ValueError, RuntimeError, OSError) as exc:  # ValueError: a missing key file
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        console.print(
            f"worker on queue {settings.task_queue!r} at {settings.temporal_address}"
            + (" with the edge-case starter" if with_starter else "")
        )
        await serve(settings, publish=publish, with_starter=with_starter, rules=rule or None, stop=stop)

    asyncio.run(main())
