"""`loopline workflows worker`: the Temporal worker (promotion workflow and activities) for a queue.

Settings come from `LOOPLINE_*` variables (`workflows.settings.WorkflowsSettings`; the broker from
`LOOPLINE_KAFKA_*`); options override them. `--with-starter` also runs the edge-case starter, which
starts one promotion per new edge case in the archive.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:
    from bridge.audit.event_keys import Keyring
    from loopline.kafka.settings import KafkaSettings

console = Console(stderr=True)
app = typer.Typer(help="Temporal workers: promotion of edge cases into tasks.", no_args_is_help=True)


class KafkaPublisher:
    """Sends one structured event to a topic and waits for the broker's acknowledgment."""

    def __init__(self, kafka: KafkaSettings, topic: str, keys: Keyring | None = None) -> None:
        from confluent_kafka import Producer

        from loopline.kafka.topics import ensure_topics

        ensure_topics(kafka.client_config("admin"), [topic])
        self.topic, self._keys = topic, keys
        self._producer: Producer | None = Producer(kafka.client_config("producer"))

    def __call__(self, doc: dict[str, Any]) -> None:
        from schemas.codec import from_structured, to_kafka

        if self._producer is None:
            raise RuntimeError("the publisher is closed")
        record = to_kafka(from_structured(doc))
        # MACed with the workflow's own key, so the stream worker archives it (bridge.audit.event_keys)
        mac = [] if self._keys is None else self._keys.signing_key(str(doc["source"])).headers_for(doc)
        failures: list[str] = []
        self._producer.produce(
            self.topic, key=record.key, value=record.value, headers=[*record.headers, *mac],
            on_delivery=lambda err, _msg: failures.append(str(err)) if err else None,
        )  # fmt: skip
        if self._producer.flush(30) or failures:
            raise RuntimeError(f"{doc['type']} not delivered to {self.topic}: {failures or 'timed out'}")

    def close(self) -> None:
        """Flush and drop the producer (its threads stop once it is garbage)."""
        if self._producer is not None:
            self._producer.flush(10)
            self._producer = None


def kafka_publisher(kafka: KafkaSettings, topic: str) -> KafkaPublisher:
    """A publisher of `task.promoted` events to `topic`, MACed with the promotion workflow's key
    from the event keyring (`LOOPLINE_EVENT_KEYS_FILE`, made under `.loopline` when missing)."""
    from bridge.audit.event_keys import Keyring
    from loopline.streams.event_keys import ensure_keyring
    from loopline.streams.settings import StreamsSettings

    source = "loopline://workflows/promotion"
    keys = ensure_keyring(StreamsSettings().event_keys_file, [source])
    return KafkaPublisher(kafka, topic, Keyring((keys.signing_key(source),)))


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

    from loopline.kafka.settings import KafkaSettings
    from workflows.settings import WorkflowsSettings
    from workflows.worker import serve

    overrides = {
        "task_queue": queue, "temporal_address": temporal_address, "db_url": db_url, "drafts_dir": drafts_dir,
        "tasksets_root": tasksets_root, "events_topic": events_topic,
    }  # fmt: skip
    try:
        settings = WorkflowsSettings.model_validate({k: v for k, v in overrides.items() if v is not None})
        training_only = settings.task_queue == settings.gpu_task_queue  # the gpu queue publishes nothing
        publish = (
            kafka_publisher(KafkaSettings(), settings.events_topic)
            if publish_events and not training_only
            else None
        )
    except (ValidationError, RuntimeError, OSError) as exc:
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
