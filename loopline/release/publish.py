"""Release events to Kafka, MACed like every other producer's (docs/release.md).

The release manager stores each decision's events first and then hands them to `publish`; this
publisher sends them to the event topic, each with the HMAC headers of the release's own key
(source `loopline://training/release`) from the event keyring, so the stream worker verifies,
archives and audits them as it does `task.promoted` (`loopline.commands.workflows.KafkaPublisher`).
A send that fails leaves the events stored; `loopline adapters publish` sends the stored trail
again, and the archive keeps each event once (it is idempotent on source and id).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bridge.audit.event_keys import Keyring
from loopline.commands.workflows import KafkaPublisher
from loopline.kafka.settings import KafkaSettings
from loopline.streams.event_keys import ensure_keyring
from loopline.streams.settings import StreamsSettings
from training.release.manager import SOURCE


def release_publisher(kafka: KafkaSettings | None = None, topic: str | None = None) -> KafkaPublisher:
    """A publisher to `topic` (default the streams' event topic, `LOOPLINE_EVENTS_TOPIC`), MACed
    with the release key from `LOOPLINE_EVENT_KEYS_FILE` (the key is made there when missing)."""
    streams = StreamsSettings()
    keys = ensure_keyring(streams.event_keys_file, [SOURCE])
    return KafkaPublisher(
        kafka or KafkaSettings(), topic or streams.events_topic, Keyring((keys.signing_key(SOURCE),))
    )


def republish(publisher: KafkaPublisher, events: Iterable[dict[str, Any]]) -> int:
    """Send stored release events again (the archive keeps each once); how many were sent."""
    sent = 0
    for doc in events:
        publisher(doc)
        sent += 1
    return sent
