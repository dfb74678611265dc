"""Read a whole topic from its first offset to its end with confluent-kafka (for `loopline replay`).

"The end" comes from Fetch responses, never from ListOffsets: Tansu under-reports the high
watermark in ListOffsets(LATEST) when the last batch held more than one record (design.md §6).
librdkafka raises PARTITION_EOF when a fetch reaches the high watermark *that fetch reported*, so
the read stops at each partition's EOF, with an idle timeout as the backstop. ListOffsets is used
only for the progress bar's estimate, which may be low.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition

from bridge.streams.deadletter import RawMessage
from bridge.streams.decode import header_list


def _consumer(bootstrap_servers: str, extra: dict[str, Any] | None) -> Consumer:
    config: dict[str, Any] = {
        "bootstrap.servers": bootstrap_servers,
        # A throwaway group that never commits: a replay must not move any real consumer group.
        "group.id": f"loopline-replay-{uuid.uuid4().hex[:12]}",
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        "auto.offset.reset": "earliest",
        **(extra or {}),
    }
    return Consumer(config)


def _partitions(consumer: Consumer, topic: str, timeout_s: float) -> list[int]:
    meta = consumer.list_topics(topic, timeout=timeout_s).topics.get(topic)
    if meta is None or meta.error is not None:
        raise KafkaException(meta.error if meta is not None else f"topic {topic!r} not found")
    return sorted(meta.partitions)


def estimate_size(bootstrap_servers: str, topic: str, *, extra: dict[str, Any] | None = None) -> int:
    """Roughly how many messages `topic` holds (ListOffsets: may be low on Tansu; display only)."""
    consumer = _consumer(bootstrap_servers, extra)
    try:
        total = 0
        for partition in _partitions(consumer, topic, 10.0):
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10.0)
            total += max(0, high - low)
        return total
    finally:
        consumer.close()


def read_topic(
    bootstrap_servers: str,
    topic: str,
    *,
    idle_timeout_s: float = 10.0,
    extra: dict[str, Any] | None = None,
) -> Iterator[RawMessage]:
    """Every message of `topic` from offset 0 of each partition, until each partition's end."""
    consumer = _consumer(bootstrap_servers, extra)
    try:
        partitions = _partitions(consumer, topic, 10.0)
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        at_end: set[int] = set()
        last_seen = time.monotonic()
        while len(at_end) < len(partitions):
            msg = consumer.poll(0.5)
            if msg is None:
                if time.monotonic() - last_seen > idle_timeout_s:
                    return  # nothing arrived for a while: as far as the broker will say, this is the end
                continue
            last_seen = time.monotonic()
            error = msg.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    at_end.add(msg.partition() or 0)
                    continue
                raise KafkaException(error)
            partition = msg.partition() or 0
            at_end.discard(partition)
            stamp_type, stamp = msg.timestamp()
            yield RawMessage(
                topic=topic,
                partition=partition,
                offset=msg.offset() or 0,
                key=msg.key(),
                value=msg.value(),
                headers=header_list(msg.headers()),
                timestamp_ms=stamp if stamp_type else None,
            )
    finally:
        consumer.close()
