"""How far the projector is behind the events topic, in events: per partition, the topic's high
watermark less one past the highest offset the archive holds (the archive records each event's
Kafka position). A message the worker sent to the dead-letter topic instead counts until an event
after it is archived, which is what an operator watching for a stuck projector wants to see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from confluent_kafka import Consumer, KafkaException, TopicPartition
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from bridge.store import Engine, StoreError
from bridge.store.tallies import archived_offsets

Watermarks = Callable[[], Mapping[int, tuple[int, int]]]
"""Partition → (low, high) watermark of the events topic."""


def kafka_watermarks(config: Mapping[str, Any], topic: str, timeout_s: float = 5.0) -> Watermarks:
    """Watermarks read by a consumer of its own (no group membership, no commits)."""
    consumer = Consumer({**config, "group.id": "loopline-metrics", "enable.auto.commit": False})

    def read() -> dict[int, tuple[int, int]]:
        partitions = consumer.list_topics(topic, timeout=timeout_s).topics[topic].partitions
        return {
            p: tuple(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=timeout_s))  # type: ignore[misc]
            for p in sorted(partitions)
        }

    return read


class ProjectorLagCollector(Collector):
    """`loopline_projector_lag_events` by partition, and their sum without a label."""

    def __init__(self, topic: str, watermarks: Watermarks, engine: Engine) -> None:
        self.topic, self.watermarks, self.engine = topic, watermarks, engine

    def collect(self) -> Iterator[Any]:
        up = GaugeMetricFamily("loopline_projector_lag_up", "1 when the topic and the archive could be read.")
        try:
            marks = self.watermarks()
            archived = archived_offsets(self.engine, self.topic)
        except (KafkaException, StoreError, KeyError):
            up.add_metric([], 0.0)
            yield up
            return
        up.add_metric([], 1.0)
        yield up
        lag = GaugeMetricFamily(
            "loopline_projector_lag_events",
            "Events on the topic past the last one the archive holds, by partition.",
            labels=["topic", "partition"],
        )
        total = 0
        for partition, (low, high) in sorted(marks.items()):
            done = archived.get(partition, low - 1) + 1
            behind = max(0, high - max(done, low))
            total += behind
            lag.add_metric([self.topic, str(partition)], float(behind))
        yield lag
        whole = GaugeMetricFamily("loopline_projector_lag_events_total", "The lag summed over partitions.")
        whole.add_metric([], float(total))
        yield whole
