"""Checkpoints anchored outside the archive's host: each signed checkpoint also goes to a Kafka
topic of its own (`loopline.checkpoints.v1`), so deleting the checkpoint files beside the archive
does not blind the audit (`loopline audit verify` reads it by default). The topic holds signed
documents only: whoever can produce to it cannot make one verify without the producer's seed."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from confluent_kafka import Producer

from schemas.topics import CHECKPOINTS_TOPIC as CHECKPOINT_TOPIC

log = logging.getLogger(__name__)


class KafkaAnchor:
    """Produces each checkpoint document to `topic` and waits for the broker's acknowledgment; a
    failure is logged, never raised (the file is written already; the next checkpoint tries again).
    The producer is made at the first checkpoint (a process that never checkpoints never connects)."""

    def __init__(self, kafka_config: Mapping[str, Any], topic: str = CHECKPOINT_TOPIC) -> None:
        self.topic = topic
        self._config = dict(kafka_config)
        self._producer: Producer | None = None
        self._closed = False

    def __call__(self, doc: Mapping[str, Any]) -> bool:
        if self._closed:
            return False
        if self._producer is None:
            self._producer = Producer(self._config)
        failures: list[str] = []
        key = f"{doc.get('source')}".encode()
        self._producer.produce(
            self.topic,
            key=key,
            value=json.dumps(doc, sort_keys=True).encode(),
            on_delivery=lambda err, _msg: failures.append(str(err)) if err else None,
        )
        if self._producer.flush(10) or failures:
            log.error("checkpoint not anchored in %s: %s", self.topic, failures or "timed out")
            return False
        return True

    def close(self) -> None:
        """Flush and drop the producer (its threads stop once it is garbage)."""
        self._closed = True
        if self._producer is not None:
            self._producer.flush(5)
            self._producer = None


def anchored_checkpoints(
    bootstrap_servers: str, topic: str = CHECKPOINT_TOPIC, *, extra: Mapping[str, Any] | None = None
) -> Iterator[dict[str, Any]]:
    """Every checkpoint document on `topic` (those that do not parse are skipped: the audit checks
    the signature of every one it is given); `extra`: more consumer settings (TLS)."""
    from bridge.streams.topic_reader import read_topic

    for message in read_topic(bootstrap_servers, topic, idle_timeout_s=3, extra=dict(extra or {})):
        try:
            doc = json.loads(message.value or b"")
        except ValueError:
            continue
        if isinstance(doc, dict):
            yield doc
