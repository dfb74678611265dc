"""A private Tansu broker (memory storage) started through loopline.stack, and topic helpers.

The shared session broker cannot be stopped by one test, so outage tests start their own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, TopicPartition

from loopline.kafka.topics import ensure_topics
from loopline.stack.scratch import ScratchBroker

PrivateBroker = ScratchBroker
"""The capture tests' name for a broker they kill and restart."""


def create_topic(config: dict[str, Any], topic: str, partitions: int = 3) -> None:
    """Create `topic` (an existing one is fine)."""
    ensure_topics(config, [topic], partitions=partitions, timeout_s=10)


@dataclass(frozen=True)
class Consumed:
    """One message read back from the topic."""

    key: bytes
    value: bytes
    headers: list[tuple[str, bytes]]
    partition: int
    offset: int

    @property
    def event_id(self) -> str:
        return dict(self.headers)["ce_id"].decode()


def read_topic(
    config: dict[str, Any],
    topic: str,
    expect_ids: set[str],
    *,
    timeout_s: float = 30.0,
    settle_s: float = 0.5,
) -> list[Consumed]:
    """Every message of `topic` from the beginning, until all `expect_ids` were seen and `settle_s`
    more passed without news (to catch duplicates), or `timeout_s`.

    Partitions are assigned by hand from offset 0: no group join to wait for, and no reliance on
    the watermarks Tansu under-reports (design.md section 6).
    """
    consumer = Consumer({**config, "group.id": f"capture-test-{topic}", "enable.auto.commit": False})
    try:
        metadata = consumer.list_topics(topic, timeout=10)
        partitions = sorted(metadata.topics[topic].partitions)
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        seen: list[Consumed] = []
        ids: set[str] = set()
        deadline = time.monotonic() + timeout_s
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            batch = consumer.consume(1000, 0.1)
            for msg in batch:
                if msg.error():
                    continue
                raw_headers = msg.headers() or []
                headers = [(str(k), v if isinstance(v, bytes) else b"") for k, v in list(raw_headers)]
                item = Consumed(
                    msg.key() or b"", msg.value() or b"", headers, msg.partition() or 0, msg.offset() or 0
                )
                seen.append(item)
                ids.add(item.event_id)
            if batch:
                quiet_since = time.monotonic()
            if expect_ids <= ids and time.monotonic() - quiet_since >= settle_s:
                break
        return seen
    finally:
        consumer.close()
