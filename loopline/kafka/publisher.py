"""Structured events to a Kafka topic, MACed with their producer's key (`bridge.audit.event_keys`).

The stream worker verifies each event's MAC before it archives it, so every producer outside the
bridge's capture (the promotion workflow's `task.promoted`, the release manager's decisions) sends
through `signed_publisher` with its own source's key from the event keyring.
"""

from __future__ import annotations

from typing import Any

from confluent_kafka import Producer

from bridge.audit.event_keys import Keyring
from loopline.kafka.settings import KafkaSettings
from loopline.kafka.topics import ensure_topics
from loopline.streams.event_keys import ensure_keyring
from loopline.streams.settings import StreamsSettings
from schemas.codec import from_structured, to_kafka

PROMOTION_SOURCE = "loopline://workflows/promotion"
"""The promotion workflow's producer name (its `task.promoted` events)."""


class KafkaPublisher:
    """Sends one structured event to a topic and waits for the broker's acknowledgment."""

    def __init__(self, kafka: KafkaSettings, topic: str, keys: Keyring | None = None) -> None:
        ensure_topics(kafka.client_config("admin"), [topic])
        self.topic, self._keys = topic, keys
        self._producer: Producer | None = Producer(kafka.client_config("producer"))

    def __call__(self, doc: dict[str, Any]) -> None:
        if self._producer is None:
            raise RuntimeError("the publisher is closed")
        record = to_kafka(from_structured(doc))
        mac = [] if self._keys is None else self._keys.signing_key(str(doc["source"])).headers_for(doc)
        failures: list[str] = []
        self._producer.produce(
            self.topic,
            key=record.key,
            value=record.value,
            headers=[*record.headers, *mac],
            on_delivery=lambda err, _msg: failures.append(str(err)) if err else None,
        )
        if self._producer.flush(30) or failures:
            raise RuntimeError(f"{doc['type']} not delivered to {self.topic}: {failures or 'timed out'}")

    def close(self) -> None:
        """Flush and drop the producer (its threads stop once it is garbage)."""
        if self._producer is not None:
            self._producer.flush(10)
            self._producer = None


def signed_publisher(
    source: str, kafka: KafkaSettings | None = None, topic: str | None = None
) -> KafkaPublisher:
    """A publisher to `topic` (default the streams' event topic, `LOOPLINE_EVENTS_TOPIC`), MACed with
    `source`'s key from the event keyring (`LOOPLINE_EVENT_KEYS_FILE`; the key is made there when
    missing)."""
    streams = StreamsSettings()
    keys = ensure_keyring(streams.event_keys_file, [source])
    return KafkaPublisher(
        kafka or KafkaSettings(), topic or streams.events_topic, Keyring((keys.signing_key(source),))
    )
