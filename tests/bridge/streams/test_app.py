"""The faust agents, in-process (`agent.test_context()`): wiring, raw bytes, DLQ and reports."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import faust

from bridge.store import SqlEpisodeReader, SqlEventArchive
from bridge.streams.app import make_app, pipelined, raw_topic
from bridge.streams.config import StreamsConfig
from bridge.streams.deadletter import DeadLetter, RawMessage, as_mapping
from bridge.streams.decode import Decoded, decode_message
from schemas.events import EdgeCaseDetected
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.messages import hostile, message

Sent = list[tuple[str, bytes | None, bytes | None, list[tuple[str, bytes]]]]


def _app(archive: SqlEventArchive, sent: Sent) -> faust.App:
    config = StreamsConfig(db_url="sqlite://", batch_size=50, batch_within_s=0.05)

    async def send(
        topic: str, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes]]
    ) -> None:
        sent.append((topic, key, value, list(headers)))

    return make_app(config, archive=archive, send=send)


async def _wait_for(check, timeout_s: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_the_projector_agent_archives_events_and_dead_letters_bad_messages(
    archive: SqlEventArchive,
) -> None:
    sent: Sent = []
    app = _app(archive, sent)
    events = typical_episode().events
    value, headers = hostile(events[1])["hash_mismatch"]  # events[1] is a model reply
    async with app.agents["projector"].test_context() as agent:
        for event in events:
            m = message(event)
            await agent.put(m.value, key=m.key, headers=m.headers)
        await agent.put(value, key=b"ep-1", headers=headers)
        await _wait_for(lambda: archive.count() == len(events) and len(sent) == 1)
    ((topic, key, dead_value, dead_headers),) = sent
    assert (topic, key, dead_value) == ("loopline.dlq.v1", b"ep-1", value)
    assert as_mapping(DeadLetter(key, dead_value, dead_headers))["reason_code"] == "hash_mismatch"
    assert SqlEpisodeReader(archive.engine).get_episode("ep-1") is not None


async def test_the_detector_agent_publishes_chained_edge_case_events(archive: SqlEventArchive) -> None:
    sent: Sent = []
    app = _app(archive, sent)
    async with app.agents["detector"].test_context() as agent:
        for event in typical_episode().events:
            m = message(event)
            await agent.put(m.value, key=m.key, headers=m.headers)
        await _wait_for(lambda: len(sent) >= 2)
    decoded = [decode_message(value, headers) for _, _, value, headers in sent]
    assert all(isinstance(d, Decoded) for d in decoded)
    rules = sorted(
        d.event.data.rule
        for d in decoded
        if isinstance(d, Decoded) and isinstance(d.event.data, EdgeCaseDetected)
    )
    assert rules == ["escalation", "tool_failure.http_5xx"]
    assert {topic for topic, *_ in sent} == {"loopline.events.v1"}


def test_the_app_is_configured_for_the_embedded_broker() -> None:
    config = StreamsConfig(db_url="sqlite://", session_timeout_s=6.0)
    app = make_app(config, archive=SqlEventArchive("sqlite://"))
    assert app.conf.broker_session_timeout == 6.0
    assert app.conf.consumer_auto_offset_reset == "earliest"
    assert app.conf.topic_disable_leader is True
    assert app.conf.web_enabled is False
    assert app.conf.processing_guarantee.value == "at_least_once"  # so aiokafka stays non-idempotent
    assert app.tables.data == {}
    assert set(app.agents) == {"projector", "detector", "dead-letter-detector"}


async def test_a_batch_is_acked_only_after_its_work_finished() -> None:
    gate, batches_seen = asyncio.Event(), []
    app = faust.App("pipelined-test", store="memory://", web_enabled=False, autodiscover=False)
    config = StreamsConfig(db_url="sqlite://", batch_size=2, batch_within_s=0.05)

    async def work(messages: list[RawMessage]) -> None:
        batches_seen.append([m.value for m in messages])
        await gate.wait()

    @app.agent(raw_topic(app, "t"))
    async def agent_under_test(stream: Any) -> None:
        await pipelined(stream, config, work)

    async with agent_under_test.test_context() as agent:
        events = []
        for value in (b"1", b"2"):
            event = await agent.put(value, wait=False)
            event.message.incref()  # what faust's conductor does for each subscribed stream
            events.append(event)
        await _wait_for(lambda: batches_seen == [[b"1", b"2"]])
        await asyncio.sleep(0.1)
        assert not any(e.message.acked for e in events), "acked before the work was done"
        gate.set()
        await _wait_for(lambda: all(e.message.acked for e in events))
