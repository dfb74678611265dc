"""Decode one Kafka message into an event, or say exactly why not. Pure; no faust here.

A message passes when it is a CloudEvent in binary mode, its JSON parses, its type is known (or
upcasts), it validates, and its own `hash` matches its content. Chain continuity across events is
not checked here: that is `loopline audit verify`'s job, over the archive.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schemas.chain import canonical_bytes
from schemas.codec import MAX_EVENT_BYTES, EventDecodeError, from_structured, structured_from_kafka
from schemas.envelope import Event

Headers = Sequence[tuple[str, bytes | str | None]] | Mapping[str, bytes | str | None] | None
_ENVELOPE_TEXT = ("id", "source", "episodeid", "subject", "traceparent")


@dataclass(frozen=True)
class Decoded:
    """A valid event, with its structured JSON as received (what the archive keeps)."""

    event: Event
    structured: dict[str, Any]
    canonical: bytes = b""
    """The canonical bytes the hash (and a producer's MAC) covers, computed once here."""


@dataclass(frozen=True)
class Rejection:
    """Why a message is not a valid event."""

    reason_code: str
    """Stable category: no_value, oversized, not_json, not_cloudevent, bad_header, unknown_type,
    invalid, hash_mismatch."""
    reason: str
    """The details, for a person."""


def header_list(headers: Headers) -> list[tuple[str, bytes | str | None]]:
    """Kafka headers as a list of pairs, whichever form the client handed them in."""
    if headers is None:
        return []
    if isinstance(headers, Mapping):
        return list(headers.items())
    return list(headers)


def _classify_transport(reason: str) -> str:
    if "exceeds" in reason:
        return "oversized"
    if reason.startswith("not valid JSON"):
        return "not_json"
    if reason.startswith("not a CloudEvent"):
        return "not_cloudevent"
    return "bad_header"


def decode_message(value: bytes | None, headers: Headers) -> Decoded | Rejection:
    """The event in a binary-mode message, or the reason it is not one."""
    if value is None:
        return Rejection("no_value", "message has no value")
    if len(value) > MAX_EVENT_BYTES:
        return Rejection("oversized", f"value of {len(value)} bytes exceeds the {MAX_EVENT_BYTES}-byte limit")
    try:
        doc = structured_from_kafka(value, header_list(headers))
    except EventDecodeError as exc:
        return Rejection(_classify_transport(exc.reason), exc.reason)
    try:
        event = from_structured(doc)
    except EventDecodeError as exc:
        code = "unknown_type" if "unknown event type" in exc.reason else "invalid"
        return Rejection(code, exc.reason)
    for name in _ENVELOPE_TEXT:
        text = doc.get(name)
        # Ids are identifiers, not prose: control characters in them only break stores and logs.
        if isinstance(text, str) and not text.isprintable():
            return Rejection("invalid", f"envelope attribute {name!r} contains control characters")
    canonical = canonical_bytes(doc)
    expected = hashlib.sha256(canonical).hexdigest()  # what schemas.chain.hash_structured computes
    if doc.get("hash") != expected:
        return Rejection("hash_mismatch", f"hash {doc.get('hash')!r} does not match the content ({expected})")
    return Decoded(event, doc, canonical)
