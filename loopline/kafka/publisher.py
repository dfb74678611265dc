"""Structured events to a Kafka topic, signed with their producer's key (`bridge.audit.event_keys`).

The stream worker verifies each event's signature and scope before it archives it, so every producer
outside the bridge's capture (the promotion workflow's `task.promoted`, the release manager's
decisions) sends through `signed_publisher` with its own role's private key file only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from confluent_kafka import Producer

from bridge.audit.event_keys import EventKeyError, Keyring
from bridge.audit.scopes import SCOPES
from loopline.kafka.settings import KafkaSettings
from loopline.kafka.topics import ensure_topics
from loopline.streams.event_keys import PROMOTION_SOURCE, signing_key
from loopline.streams.settings import StreamsSettings
from schemas.codec import from_structured, to_kafka

__all__ = ["PROMOTION_SOURCE", "KafkaPublisher", "signed_publisher"]


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
    source: str, kafka: KafkaSettings | None = None, topic: str | None = None, key_file: Path | None = None
) -> KafkaPublisher:
    """A publisher to `topic` (default the streams' event topic, `LOOPLINE_EVENTS_TOPIC`), signed with
    `source`'s key from its role's own key file (`LOOPLINE_PROMOTION_KEY_FILE`,
    `LOOPLINE_RELEASE_KEY_FILE`, or `key_file`); `EventKeyError`, saying where it looked, when it is
    missing."""
    streams = StreamsSettings()
    scope = SCOPES.role_of(source)
    if scope is None:
        raise EventKeyError(f"source {source!r} is no named producer's (bridge/audit/producer_scopes.json)")
    path, variable = streams.producer_key_file(scope.role)
    path = key_file or path
    key = signing_key(path, source, variable=variable)
    return KafkaPublisher(kafka or KafkaSettings(), topic or streams.events_topic, Keyring((key,)))
