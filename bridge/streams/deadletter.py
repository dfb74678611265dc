"""The dead-letter record format of `loopline.dlq.v1`. Pure; no faust here.

A dead letter is the original message, kept so it can be replayed once fixed:
- key: the original key; value: the original bytes (cut to `MAX_KEPT_BYTES` when the original was
  oversized, with `dlq_value_truncated` giving the original size);
- headers: the original headers (except any `dlq_*`), then
  `dlq_reason_code` (a stable category, see `decode.Rejection`), `dlq_reason` (the details),
  `dlq_topic`, `dlq_partition`, `dlq_offset`, `dlq_timestamp_ms` (the original's position and time),
  `dlq_stage` (which processor refused it) and `dlq_failed_at` (ISO 8601, UTC).
Delivery is at-least-once: a redelivered message may be dead-lettered twice; (topic, partition,
offset) identifies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from bridge.detect.context import Rejected
from bridge.streams.decode import Headers, header_list

MAX_KEPT_BYTES = 64 * 1024
MAX_REASON_CHARS = 4000
PREFIX = "dlq_"


@dataclass(frozen=True)
class RawMessage:
    """A consumed Kafka message, whichever client consumed it."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | str | None]] = field(default_factory=list)
    timestamp_ms: int | None = None


@dataclass(frozen=True)
class DeadLetter:
    """One record for the dead-letter topic."""

    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]]

    @classmethod
    def build(
        cls, message: RawMessage, reason_code: str, reason: str, *, stage: str, failed_at: datetime
    ) -> DeadLetter:
        """The dead letter of `message`."""
        value = message.value
        extra: list[tuple[str, bytes]] = []
        if value is not None and len(value) > MAX_KEPT_BYTES:
            extra.append((PREFIX + "value_truncated", str(len(value)).encode()))
            value = value[:MAX_KEPT_BYTES]
        original = [(k, _bytes(v)) for k, v in message.headers if not k.startswith(PREFIX)]
        ours = {
            "reason_code": reason_code,
            "reason": reason[:MAX_REASON_CHARS],
            "topic": message.topic,
            "partition": str(message.partition),
            "offset": str(message.offset),
            "timestamp_ms": "" if message.timestamp_ms is None else str(message.timestamp_ms),
            "stage": stage,
            "failed_at": failed_at.isoformat(),
        }
        headers = original + [(PREFIX + k, v.encode("utf-8", "replace")) for k, v in ours.items()] + extra
        return cls(message.key, value, headers)

    def header(self, name: str) -> str | None:
        """The last header of that name, as text."""
        return _header(self.headers, name)


def _bytes(value: bytes | str | None) -> bytes:
    if value is None:
        return b""
    return value if isinstance(value, bytes) else value.encode("utf-8", "replace")


def _header(headers: list[tuple[str, bytes | str | None]] | list[tuple[str, bytes]], name: str) -> str | None:
    found: str | None = None
    for key, value in headers:
        if key == name:
            found = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return found


def rejected_from_headers(headers: Headers) -> Rejected | None:
    """What the detector's dead-letter rule needs, from a dead letter's headers; None if not one."""
    pairs = header_list(headers)
    code = _header(pairs, PREFIX + "reason_code")
    if code is None:
        return None
    text = {
        name: _header(pairs, name) for name in ("ce_type", "ce_source", "ce_episodeid", "ce_tenant", "ce_id")
    }
    return Rejected(
        reason_code=code[:64],
        reason=_header(pairs, PREFIX + "reason") or "",
        topic=(_header(pairs, PREFIX + "topic") or "?")[:255],
        event_type=text["ce_type"],
        source=text["ce_source"],
        episode_id=text["ce_episodeid"],
        tenant=text["ce_tenant"],
        event_id=text["ce_id"],
    )


def as_mapping(letter: DeadLetter) -> Mapping[str, str]:
    """The `dlq_*` headers of a dead letter, without the prefix (for logs and tests)."""
    return {k[len(PREFIX) :]: v.decode("utf-8", "replace") for k, v in letter.headers if k.startswith(PREFIX)}
