"""The relay against the real embedded broker: every event arrives, byte for byte, in episode order."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bridge.capture import DeliveryLog, KafkaRelay, ProcessRelay, SqliteOutbox
from bridge.recording import EpisodeRecorder
from schemas import EpisodeChain, Event, from_kafka, to_kafka
from schemas.events import Escalated
from tests.bridge.capture.brokers import create_topic, read_topic
from tests.bridge.recording.episodes import ARGS_MODELS, record_episode

pytestmark = pytest.mark.integration

MakeRecorder = Callable[..., EpisodeRecorder]


def record_many(make_recorder: MakeRecorder, outbox: SqliteOutbox, prefix: str, n: int) -> list[Event]:
    events: list[Event] = []
    for i in range(n):
        events += record_episode(make_recorder(f"{prefix}-{i}", outbox, args_models=ARGS_MODELS))
    return events


def test_the_relay_delivers_every_event_with_key_value_and_headers_intact(
    kafka_config: dict[str, Any], unique_topic: str, make_recorder: MakeRecorder, outbox: SqliteOutbox
) -> None:
    create_topic(kafka_config, unique_topic)
    appended = record_many(make_recorder, outbox, "ep", 6)
    with KafkaRelay(outbox, topic=unique_topic, kafka_config=kafka_config) as relay:
        assert relay.flush(30)
        metrics = relay.metrics()
    assert (metrics.pending, metrics.in_flight, metrics.delivered) == (0, 0, len(appended))

    consumed = read_topic(kafka_config, unique_topic, {e.id for e in appended})
    by_id = {msg.event_id: msg for msg in consumed}
    assert set(by_id) == {e.id for e in appended}  # dedupe by id gives exactly the appended set
    for event in appended:
        msg, record = by_id[event.id], to_kafka(event)
        assert (msg.key, msg.value, msg.headers) == (record.key, record.value, record.headers)
        assert from_kafka(msg.value, msg.headers) == event

    rows = {row.event_id: row for row in outbox.rows()}
    for msg in consumed:  # delivered rows carry the position the broker reported
        assert (rows[msg.event_id].partition, rows[msg.event_id].offset) == (msg.partition, msg.offset)
    for episode in {e.episodeid for e in appended}:  # one key, one partition, in seq order
        mine = sorted((m for m in consumed if m.key == episode.encode()), key=lambda m: m.offset)
        assert len({m.partition for m in mine}) == 1
        assert [from_kafka(m.value, m.headers).seq for m in mine] == list(range(len(mine)))


def test_a_restarted_process_sends_only_what_was_never_delivered(
    kafka_config: dict[str, Any],
    unique_topic: str,
    make_recorder: MakeRecorder,
    open_outbox: Callable[..., SqliteOutbox],
    tmp_path: Path,
) -> None:
    create_topic(kafka_config, unique_topic)
    first = open_outbox(tmp_path / "o.db")
    before = record_many(make_recorder, first, "before", 3)
    with KafkaRelay(first, topic=unique_topic, kafka_config=kafka_config) as relay:
        assert relay.flush(30)
    after = record_many(make_recorder, first, "after", 3)  # appended, never relayed: the process "dies"
    first.close()

    second = open_outbox(tmp_path / "o.db")
    assert second.pending_count() == len(after)
    with KafkaRelay(second, topic=unique_topic, kafka_config=kafka_config) as relay:
        assert relay.flush(30)
        assert relay.metrics().delivered == len(after)
    consumed = read_topic(kafka_config, unique_topic, {e.id for e in before + after}, settle_s=1.0)
    assert sorted(m.event_id for m in consumed) == sorted(e.id for e in before + after)  # no resend


@pytest.mark.parametrize("relay_class", [KafkaRelay, ProcessRelay])
def test_a_row_that_can_never_be_produced_is_rejected_and_does_not_hold_up_the_rest(
    kafka_config: dict[str, Any],
    unique_topic: str,
    outbox: SqliteOutbox,
    delivery: DeliveryLog,
    relay_class: type[Any],
) -> None:
    # An event over the producer's 1 MB limit, produced again and again, would hold up every event
    # behind it: it is settled as rejected instead, kept in the outbox, and counted.
    create_topic(kafka_config, unique_topic)
    chain = EpisodeChain("ep-big", tenant="clinic-a", source="loopline://tests/capture")
    small = chain.append(Escalated(reason="before", trigger="rule"))
    huge = chain.append(Escalated(reason="x" * 1_200_000, trigger="rule"))
    broken = chain.append(Escalated(reason="stored unreadable", trigger="rule"))
    after = chain.append(Escalated(reason="after", trigger="rule"))
    outbox.append(small)
    outbox.append(huge)
    outbox.append(broken, b'{"data": not json')
    outbox.append(after)
    with relay_class(outbox, topic=unique_topic, kafka_config=kafka_config) as relay:
        assert relay.flush(30)
        time.sleep(0.6)  # a relay process reports its counters twice a second
        metrics = relay.metrics()
    assert (metrics.pending, metrics.delivered, metrics.rejected) == (0, 2, 2)
    rejected = {row.event_id: row.rejected or "" for row in outbox.rejected_rows()}
    assert set(rejected) == {huge.id, broken.id}
    assert "MSG_SIZE_TOO_LARGE" in rejected[huge.id] or "too large" in rejected[huge.id].lower()
    assert "unreadable" in rejected[broken.id]
    consumed = read_topic(kafka_config, unique_topic, {small.id, after.id})
    assert sorted(m.event_id for m in consumed) == sorted([small.id, after.id])
    # kept for an operator: a prune of everything delivered leaves the rejected rows in place
    delivery.prune(delivered_before=time.time() + 10, heads_before=time.time() + 10)
    assert {row.event_id for row in outbox.rows()} >= {huge.id, broken.id}
