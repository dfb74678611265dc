"""The faust app: one factory, stateless agents, all state in SQL (design.md §6).

No faust tables: their recovery reads the high watermark through ListOffsets, which the embedded
broker (Tansu) under-reports. Agents, each a thin shell around `work.StreamWork`:
- `projector` (events topic): archive + projections; undecodable messages go to the DLQ.
- `detector` (events topic): edge-case rules; reports go back onto the events topic first and are
  recorded in the archive after the broker acknowledged them (`emitter.py`).
- `dead-letter-detector` (DLQ topic): every dead letter is a schema-violation edge case.
A batch is acked only after its work returned and its outputs were delivered (`pipelined`).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import faust
from faust.types import EventT, StreamT
from mode.types.signals import BaseSignalT

from bridge.audit.event_keys import EventKey
from bridge.store import SqlEventArchive
from bridge.streams.config import StreamsConfig
from bridge.streams.deadletter import DeadLetter, RawMessage, rejected_from_headers
from bridge.streams.decode import header_list
from bridge.streams.health import add_health_pages
from bridge.streams.offload import ProcessRunner, ThreadRunner, WorkRunner
from bridge.streams.work import StreamWork
from schemas.codec import to_kafka, to_structured
from schemas.envelope import Event

log = logging.getLogger(__name__)
Send = Callable[[str, bytes | None, bytes | None, Sequence[tuple[str, bytes]]], Awaitable[None]]


def raw_message(event: EventT[Any]) -> RawMessage:
    """A faust event as a client-neutral message."""
    m = event.message
    stamp = int(m.timestamp * 1000) if m.timestamp else None
    return RawMessage(m.topic, m.partition, m.offset, m.key, m.value, header_list(m.headers), stamp)


def raw_topic(app: faust.App, name: str) -> faust.TopicT:
    """A topic of raw bytes: decoding (and refusing) is ours, and empty values arrive too."""
    return app.topic(
        name, key_type=bytes, value_type=bytes, key_serializer="raw", value_serializer="raw", allow_empty=True
    )


def batches(stream: Any, config: StreamsConfig) -> AsyncIterator[Sequence[EventT[Any]]]:
    """Batches of events; `take_events` acks a batch once the loop body is done with it."""
    batched: AsyncIterator[Sequence[EventT[Any]]] = stream.take_events(
        config.batch_size, within=config.batch_within_s
    )
    return batched


async def pipelined(
    stream: Any, config: StreamsConfig, work: Callable[[list[RawMessage]], Awaitable[None]]
) -> None:
    """Gather the next batch while the previous one is worked on; ack each batch only once done.

    `take_events` acks a batch as soon as the loop body returns, so each message gets one extra
    reference first (faust commits an offset when its message's references reach zero); the
    reference is dropped when the work, and the delivery of its outputs, finished. One batch is in
    flight at a time, so batches finish, and offsets advance, in order.
    """
    pending: asyncio.Future[None] | None = None
    try:
        async for batch in batches(stream, config):
            if pending is not None:
                await pending
            for event in batch:
                event.message.incref()
            pending = asyncio.ensure_future(_work_then_ack(stream, batch, work))
        if pending is not None:
            await pending
    finally:
        if pending is not None and not pending.done():
            pending.cancel()  # shutting down: the batch was not acked, so it is consumed again


async def _work_then_ack(
    stream: Any, batch: Sequence[EventT[Any]], work: Callable[[list[RawMessage]], Awaitable[None]]
) -> None:
    await work([raw_message(e) for e in batch])
    for event in batch:
        await stream.ack(event)


def _runner(config: StreamsConfig, archive: SqlEventArchive | None) -> WorkRunner:
    if archive is not None:
        return ThreadRunner(StreamWork(archive, config))
    return ProcessRunner(config) if config.offload else ThreadRunner(StreamWork.from_config(config))


def _credentials(config: StreamsConfig) -> faust.SSLCredentials | None:
    if config.tls_files is None:
        return None
    ca, cert, key = config.tls_files
    context = ssl.create_default_context(cafile=str(ca))
    context.load_cert_chain(str(cert), str(key))
    return faust.SSLCredentials(context)


def faust_app(config: StreamsConfig) -> faust.App:
    """The faust app itself, with the settings every agent here relies on."""
    return faust.App(
        config.app_id,
        broker=config.broker_urls,
        broker_credentials=_credentials(config),
        store="memory://",  # no tables, so nothing is ever stored or recovered here
        autodiscover=False,
        datadir=config.faust_datadir,  # faust's default is `<app id>-data` in the working directory
        topic_disable_leader=True,  # no leader topic: one less topic and group join on Tansu
        topic_partitions=config.topic_partitions,
        topic_replication_factor=1,
        consumer_auto_offset_reset="earliest",
        broker_session_timeout=config.session_timeout_s,
        broker_heartbeat_interval=config.session_timeout_s / 3,
        # at_least_once keeps aiokafka's producer non-idempotent: Tansu refuses InitProducerId v0.
        processing_guarantee="at_least_once",
        producer_acks=-1,
        # Every effect is idempotent, so a shutdown need not wait for messages parked in a
        # half-filled batch (it would, until killed): they are simply consumed again.
        stream_wait_empty=False,
        # Fewer, larger fetches: per-message cost is faust's, so amortise the per-poll part.
        broker_max_poll_records=2000,
        consumer_max_fetch_size=8 * 1024 * 1024,
        stream_buffer_maxsize=16384,
        web_enabled=config.web_port is not None,
        web_port=config.web_port or 6066,
        web_bind=config.web_bind,
    )


class Outputs:
    """Where a batch's results go: edge-case reports back onto the events topic (MACed with the
    detector's key when there is a keyring), dead letters to the DLQ, each delivered (acked by the
    broker) before the batch that made it is acked."""

    def __init__(self, config: StreamsConfig, send: Send) -> None:
        self._config, self._send = config, send
        self._key: EventKey | None = None if config.event_keys_file is None else config.detector_key()

    async def publish(self, events: Sequence[Event]) -> None:
        """Produce `events` onto the events topic."""
        for event in events:
            record = to_kafka(event)
            headers = list(record.headers)
            if self._key is not None:
                headers += self._key.headers_for(to_structured(event))
            await self._send(self._config.events_topic, record.key, record.value, headers)

    async def dead_letter(self, letters: Sequence[DeadLetter]) -> None:
        """Produce `letters` onto the dead-letter topic."""
        for letter in letters:
            await self._send(self._config.dlq_topic, letter.key, letter.value, letter.headers)


def kafka_send(topics: dict[str, faust.TopicT]) -> Send:
    """A `Send` through the app's own producer onto `topics` (by name), waiting for the broker's ack."""

    async def send(
        topic: str, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes]]
    ) -> None:
        delivered = await topics[topic].send(key=key, value=value, headers=list(headers))
        await delivered  # the broker's ack, before the consumed batch can be acked

    return send


async def detect_and_report(runner: WorkRunner, outputs: Outputs, messages: list[RawMessage]) -> None:
    """The detector's batch: the rules, then the reports published (acked by the broker), then
    recorded in the archive. Publishing first means a crash between the two loses no report: it is
    on the topic, and the projector archives it from there."""
    result = await runner.detect(messages)
    await outputs.publish(result.reports)
    await runner.record(result.reports)
    await outputs.dead_letter(result.dead_letters)


def add_agents(
    app: faust.App,
    config: StreamsConfig,
    topics: dict[str, faust.TopicT],
    runner: WorkRunner,
    outputs: Outputs,
) -> None:
    """The agents `config` switches on, each a thin shell around the runner's work."""
    events_topic, dlq_topic = topics[config.events_topic], topics[config.dlq_topic]
    if config.projector:

        async def project_batch(messages: list[RawMessage]) -> None:
            result = await runner.project(messages)
            await outputs.dead_letter(result.dead_letters)

        @app.agent(events_topic, name="projector")
        async def project(stream: StreamT[bytes]) -> None:
            await pipelined(stream, config, project_batch)

    if config.detector:

        async def detect_batch(messages: list[RawMessage]) -> None:
            await detect_and_report(runner, outputs, messages)

        @app.agent(events_topic, name="detector")
        async def detect(stream: StreamT[bytes]) -> None:
            await pipelined(stream, config, detect_batch)

        @app.agent(dlq_topic, name="dead-letter-detector")
        async def detect_dead_letters(stream: StreamT[bytes]) -> None:
            async for batch in batches(stream, config):
                rejected = [r for e in batch if (r := rejected_from_headers(e.message.headers)) is not None]
                reports = await runner.detect_rejected(rejected)
                await outputs.publish(reports)
                await runner.record(reports)


def make_app(
    config: StreamsConfig, *, archive: SqlEventArchive | None = None, send: Send | None = None
) -> faust.App:
    """The streaming app for `config`. `archive` and `send` are injectable for in-process tests."""
    app = faust_app(config)
    topics = {name: raw_topic(app, name) for name in (config.events_topic, config.dlq_topic)}
    runner = _runner(config, archive)
    add_agents(app, config, topics, runner, Outputs(config, send or kafka_send(topics)))
    if config.web_port is not None:
        add_health_pages(app)

    def close_runner(sender: Any, /, *args: Any, signal: BaseSignalT[Any], **kwargs: Any) -> None:
        runner.close()  # child processes end with the worker

    app.on_before_shutdown.connect(close_runner)
    return app
