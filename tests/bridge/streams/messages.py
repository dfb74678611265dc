"""Kafka messages for the streams tests: valid events in binary mode, and every kind of bad one."""

from __future__ import annotations

import json

from bridge.streams.deadletter import RawMessage
from schemas import Event, to_kafka
from schemas.codec import MAX_EVENT_BYTES, to_structured

TOPIC = "loopline.events.v1"


def message(event: Event, offset: int = 0, *, partition: int = 0, signed: bool = False) -> RawMessage:
    """`event` as the projector would consume it (`signed`: MACed with its source's test key)."""
    from tests.bridge.streams.broker import producer_key

    record = to_kafka(event)
    mac = producer_key(event.source).headers_for(to_structured(event)) if signed else []
    return RawMessage(
        TOPIC, partition, offset, record.key, record.value, [*record.headers, *mac], 1_700_000_000_000
    )


def hostile(valid: Event) -> dict[str, tuple[bytes | None, list[tuple[str, bytes]]]]:
    """reason code → (value, headers) of a message that must be dead-lettered with that code.

    `valid` must be a `model.responded` event (its `turn` is what gets tampered with).
    """
    record = to_kafka(valid)
    headers = list(record.headers)

    def swap(name: str, value: bytes) -> list[tuple[str, bytes]]:
        return [(k, value if k == name else v) for k, v in headers]

    data = json.loads(record.value)
    tampered = json.dumps({**data, "turn": data.get("turn", 0) + 1}).encode()
    return {
        "no_value": (None, headers),
        "oversized": (b'{"pad":"' + b"x" * MAX_EVENT_BYTES + b'"}', headers),
        "not_json": (b"\x00\xff not json", headers),
        "not_cloudevent": (record.value, []),
        "bad_header": (record.value, swap("ce_seq", b"three")),
        "unknown_type": (record.value, swap("ce_type", b"loopline.nope.v1")),
        "invalid": (json.dumps({"turn": "many"}).encode(), headers),
        "hash_mismatch": (tampered, headers),
    }
