"""Event serialisation: CloudEvents structured JSON, and Kafka binary mode.

Kafka binary mode (CloudEvents Kafka protocol binding): every attribute travels as a `ce_<name>`
header, the value is the data as JSON, the key is the episode id, so one episode stays in order on
one partition. Every decode failure is an `EventDecodeError` with a reason fit for a dead-letter
record; nothing else escapes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from schemas.chain import ATTRIBUTES, canonical_json
from schemas.envelope import Event
from schemas.registry import DEFAULT_REGISTRY, EventRegistry

MAX_EVENT_BYTES = 1_000_000
"""Largest accepted encoded event (Kafka's default message.max.bytes is about this)."""

CONTENT_TYPE = "application/json"
_INT_ATTRIBUTES = frozenset({"seq"})
_ALL = (*ATTRIBUTES, "hash")


class EventDecodeError(ValueError):
    """Bytes that are not a valid Loopline event; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class KafkaRecord:
    """One Kafka message in CloudEvents binary mode."""

    key: bytes
    value: bytes
    headers: list[tuple[str, bytes]]


def to_structured(event: Event) -> dict[str, Any]:
    """The event as a structured-mode JSON object (a dict)."""
    return event.model_dump(mode="json")


def to_json(event: Event) -> bytes:
    """Structured-mode CloudEvents JSON."""
    return event.model_dump_json().encode()


def from_structured(doc: Any, *, registry: EventRegistry = DEFAULT_REGISTRY, upcast: bool = True) -> Event:
    """Validate a structured-mode dict, upcasting old types to the current version."""
    if not isinstance(doc, dict):
        raise EventDecodeError(f"event must be a JSON object, got {type(doc).__name__}")
    event_type, data = doc.get("type"), doc.get("data")
    if not isinstance(event_type, str):
        raise EventDecodeError("missing or non-string 'type'")
    if event_type not in registry:
        if not upcast:
            raise EventDecodeError(f"unknown event type {event_type!r}")
        if not isinstance(data, dict):
            raise EventDecodeError("'data' must be a JSON object")
        try:
            event_type, data = registry.upcast(event_type, data)
        except ValueError as exc:  # unknown type or a failing upcaster
            raise EventDecodeError(str(exc)) from None
        doc = {**doc, "type": event_type, "data": data}
    try:
        return Event.model_validate(doc, context={"registry": registry})
    except ValidationError as exc:
        raise EventDecodeError(_summarise(exc)) from None


def from_json(raw: bytes | str, *, registry: EventRegistry = DEFAULT_REGISTRY, upcast: bool = True) -> Event:
    """Parse structured-mode CloudEvents JSON."""
    return from_structured(parse_json(raw), registry=registry, upcast=upcast)


def parse_json(raw: bytes | str) -> Any:
    """JSON with size and encoding checks, failing as `EventDecodeError`."""
    if len(raw) > MAX_EVENT_BYTES:
        raise EventDecodeError(f"event of {len(raw)} bytes exceeds the {MAX_EVENT_BYTES}-byte limit")
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventDecodeError(f"not valid JSON: {exc}") from None


def to_kafka(event: Event) -> KafkaRecord:
    """Kafka binary mode: `ce_*` headers, data as canonical JSON value (the bytes the hash covers
    for `data`), episode id key."""
    doc = to_structured(event)
    headers = [("content-type", CONTENT_TYPE.encode())]
    for name in _ALL:
        value = doc.get(name)
        if name == "datacontenttype" or value is None:
            continue
        headers.append((f"ce_{name}", str(value).encode()))
    return KafkaRecord(key=event.episodeid.encode(), value=canonical_json(doc["data"]), headers=headers)


def structured_from_kafka(
    value: bytes | None, headers: Sequence[tuple[str, bytes | str | None]] | None
) -> dict[str, Any]:
    """Rebuild the structured form (as written, no validation) from a binary-mode message."""
    if value is None:
        raise EventDecodeError("message has no value")
    attrs: dict[str, Any] = {}
    for name, raw in headers or ():
        if not name.startswith("ce_"):
            continue
        try:
            text = raw.decode() if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            raise EventDecodeError(f"header {name} is not UTF-8") from None
        attrs[name[3:]] = text
    if "specversion" not in attrs:
        raise EventDecodeError("not a CloudEvent: no ce_specversion header")
    for name in _INT_ATTRIBUTES & attrs.keys():
        try:
            attrs[name] = int(attrs[name])
        except (TypeError, ValueError):
            raise EventDecodeError(f"header ce_{name} is not an integer: {attrs[name]!r}") from None
    doc = {name: attrs.get(name) for name in _ALL}
    doc["datacontenttype"] = CONTENT_TYPE
    doc["data"] = parse_json(value)
    return doc


def from_kafka(
    value: bytes | None,
    headers: Sequence[tuple[str, bytes | str | None]] | None,
    *,
    registry: EventRegistry = DEFAULT_REGISTRY,
    upcast: bool = True,
) -> Event:
    """Decode a binary-mode Kafka message into an event."""
    return from_structured(structured_from_kafka(value, headers), registry=registry, upcast=upcast)


def _summarise(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "event"
        parts.append(f"{where}: {err['msg']}")
    more = exc.error_count() - len(parts)
    return "invalid event: " + "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")
