"""Known facts about the embedded broker (design.md section 6), checked so we notice when they change.

The stack's own readiness check never reads a watermark from ListOffsets: it consumes from the
offset the delivery report gave. These tests show why.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

pytestmark = pytest.mark.integration


def _produce_one_batch(kafka_config: dict[str, Any], topic: str, count: int) -> None:
    # A long linger puts all records into one batch: the case Tansu gets wrong.
    producer = Producer({**kafka_config, "linger.ms": 200})
    for n in range(count):
        producer.produce(topic, value=f"record-{n}".encode())
    assert producer.flush(15) == 0


def test_tansu_list_offsets_under_reports_the_high_watermark_after_a_multi_record_batch(
    stack: Any, kafka_config: dict[str, Any], kafka_topic: str
) -> None:
    if not stack.kafka.embedded:
        pytest.skip("a Tansu fact; the session uses an external broker")
    _produce_one_batch(kafka_config, kafka_topic, 5)
    consumer = Consumer({**kafka_config, "group.id": f"{kafka_topic}.g", "enable.auto.commit": False})
    try:
        partition = TopicPartition(kafka_topic, 0)
        _, listed_high = consumer.get_watermark_offsets(partition, timeout=10)

        consumer.assign([TopicPartition(kafka_topic, 0, 0)])
        seen = 0
        deadline = time.monotonic() + 15
        while seen < 5 and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            seen += message is not None and message.error() is None
        _, fetched_high = consumer.get_watermark_offsets(partition, cached=True)
    finally:
        consumer.close()

    assert seen == 5
    assert fetched_high == 5, "the watermark in Fetch responses is right"
    assert listed_high < 5, (
        "Tansu's ListOffsets(LATEST) now reports the true high watermark: "
        "the workaround in design.md section 6 can be revisited"
    )


def _acked_and_read_back(
    config: dict[str, Any], topic: str, count: int, timeout_ms: int = 3000
) -> tuple[list[Any], list[bytes]]:
    acked: list[Any] = []
    producer = Producer({**config, "message.timeout.ms": timeout_ms})
    for n in range(count):
        producer.produce(
            topic, value=f"m{n}".encode(), on_delivery=lambda err, msg: acked.append(err or msg.offset())
        )
    producer.flush(10)
    consumer = Consumer({**config, "group.id": f"{topic}.g", "enable.auto.commit": False})
    read: list[bytes] = []
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + 2
        while len(read) < count and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                read.append(message.value())
    finally:
        consumer.close()
    return acked, read


def test_tansu_loses_acknowledged_messages_on_a_topic_it_auto_created(stack: Any, unique_topic: str) -> None:
    if not stack.kafka.embedded:
        pytest.skip("a Tansu fact; the session uses an external broker")
    plain = {"bootstrap.servers": stack.bootstrap_servers, "broker.address.family": "v4"}  # no compat fix

    # A race: about one fresh topic in twelve comes through intact, so give it five chances.
    outcomes = []
    for attempt in range(5):
        acked, read = _acked_and_read_back(plain, f"{unique_topic}.{attempt}", 20)
        offsets = [offset for offset in acked if isinstance(offset, int)]
        outcomes.append((len(offsets), len(set(offsets)), len(read)))
        if len(offsets) == 20 and (len(set(offsets)) < 20 or len(read) < 20):
            return  # every message acknowledged, yet offsets reused or messages gone
    pytest.fail(
        f"Tansu kept every acknowledged message on 5 auto-created topics {outcomes}: "
        "tansu_compat fact 1 can be revisited"
    )


def test_the_compat_config_makes_a_missing_topic_fail_loudly_instead(
    stack: Any, kafka_config: dict[str, Any], unique_topic: str
) -> None:
    if not stack.kafka.embedded:
        pytest.skip("the compat config applies to Tansu only")

    acked, read = _acked_and_read_back(kafka_config, unique_topic, 3, timeout_ms=1000)

    assert read == []
    assert all(not isinstance(result, int) for result in acked), "no acknowledgement for a lost message"
