"""The session stack's broker is real: CloudEvents binary-mode messages survive the round trip."""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from tests.integration.ce_messages import binary_mode_message

pytestmark = pytest.mark.integration


def _read_one(kafka_config: dict[str, Any], topic: str, timeout_s: float = 15.0) -> Any:
    consumer = Consumer({**kafka_config, "group.id": f"{topic}.reader", "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                return message
        raise AssertionError(f"nothing came back from {topic} in {timeout_s} s")
    finally:
        consumer.close()


def test_a_cloudevents_message_comes_back_with_its_key_and_ce_headers(
    kafka_config: dict[str, Any], kafka_topic: str
) -> None:
    key, value, headers = binary_mode_message("ep-42", {"claim": "CLM-1"})
    producer = Producer({**kafka_config, "acks": "all"})
    producer.produce(kafka_topic, key=key, value=value, headers=headers)
    assert producer.flush(15) == 0

    message = _read_one(kafka_config, kafka_topic)

    assert message.key() == key
    assert message.value() == value
    assert message.headers() == headers  # order and bytes intact
    assert dict(message.headers())["ce_specversion"] == b"1.0"
