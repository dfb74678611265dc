"""The per-episode SHA-256 hash chain: build it, verify it, name the first broken link.

`hash` = SHA-256 over the event's canonical JSON (every attribute but `hash`, plus `data`; sorted
keys, no whitespace, non-ASCII characters as JSON escapes). Each event's `prevhash` is the
previous event's `hash`. Hashes are computed on the JSON form, so stored events can be verified as
written, whatever later upcasters do.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from pydantic import TypeAdapter, ValidationError

from schemas.base import PRINTABLE
from schemas.envelope import GENESIS_HASH, Event
from schemas.ids import new_id
from schemas.registry import EventData

ATTRIBUTES: tuple[str, ...] = (
    "specversion",
    "id",
    "source",
    "type",
    "subject",
    "time",
    "datacontenttype",
    "dataschema",
    "episodeid",
    "seq",
    "tenant",
    "traceparent",
    "prevhash",
)
"""Envelope attributes covered by the hash (all but `hash` itself), besides `data`."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True, check_circular=False)
"""The encoder of canonical JSON. ASCII escapes give every string (lone surrogates included) exactly
one encoding; floats are written as `repr` writes them; `NaN` and the infinities as JavaScript
names (`json.dumps` does the same)."""


def canonical_json(value: Any) -> bytes:
    """`value` as canonical JSON: sorted keys, no whitespace, ASCII escapes (what the hash covers)."""
    return _CANONICAL.encode(value).encode()


def canonical_bytes(structured: Mapping[str, Any]) -> bytes:
    """Canonical JSON of an event in structured form, without its `hash`."""
    body = {name: structured.get(name) for name in ATTRIBUTES}
    body["data"] = structured.get("data")
    return canonical_json(body)


def hash_structured(structured: Mapping[str, Any]) -> str:
    """The hash an event in structured JSON form should carry."""
    return hashlib.sha256(canonical_bytes(structured)).hexdigest()


def hash_event(event: Event) -> str:
    """The hash `event` should carry."""
    return hash_structured(event.model_dump(mode="json"))


_TIME = TypeAdapter(datetime)
_printable = re.compile(PRINTABLE).fullmatch  # `$` alone would let a final newline through


class SealedEvent(NamedTuple):
    """An event just appended to a chain, with its structured JSON as it will be stored."""

    event: Event
    """The event."""
    doc: bytes
    """Its CloudEvents structured JSON: the canonical bytes the hash covers, plus `hash` (last).

    Sinks store this instead of serialising the event a second time; `json.loads` of it gives the
    structured form `verify_chain` accepts."""


class EpisodeChain:
    """Appends events to one stream, assigning `seq`, `prevhash` and `hash`.

    Pure: ids and time come from injectable factories. Resume a stream with `next_seq` and
    `prevhash` from its last stored event.

    `append` is on the agent's hot path (every tool call records two events), so it validates the
    stream's constant attributes once, here, and builds each event without re-validating what it
    made itself; tests check every event type against the validating decoder.
    """

    def __init__(
        self,
        episode_id: str,
        *,
        tenant: str,
        source: str,
        next_seq: int = 0,
        prevhash: str = GENESIS_HASH,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        id_factory: Callable[[], str] = new_id,
    ) -> None:
        _check_stream(episode_id, tenant, source, next_seq, prevhash)
        self.episode_id = episode_id
        self.tenant = tenant
        self.source = source
        self.next_seq = next_seq
        self.prevhash = prevhash
        self._clock = clock
        self._new_id = id_factory

    def append(
        self,
        data: EventData,
        *,
        subject: str | None = None,
        traceparent: str | None = None,
        time: datetime | None = None,
    ) -> Event:
        """The next event of the stream, hashed and linked."""
        return self.seal(data, subject=subject, traceparent=traceparent, time=time).event

    def seal(
        self,
        data: EventData,
        *,
        subject: str | None = None,
        traceparent: str | None = None,
        time: datetime | None = None,
    ) -> SealedEvent:
        """The next event of the stream, hashed and linked, with its structured JSON bytes."""
        if not data.TYPE:
            raise ValueError(f"{type(data).__name__} is not a registered event type")
        if (subject is not None and (len(subject) > 256 or not _printable(subject))) or (
            traceparent is not None and len(traceparent) > 64
        ):
            raise ValueError(
                "subject must be 1 to 256 characters without control characters, and traceparent"
                " at most 64 characters"
            )
        when = time or self._clock()
        if when.tzinfo is None:
            raise ValueError("time must be timezone-aware")
        when = when.astimezone(UTC)
        event_id, seq, prevhash = self._new_id(), self.next_seq, self.prevhash
        attributes: dict[str, Any] = {
            "specversion": "1.0",
            "id": event_id,
            "source": self.source,
            "type": data.TYPE,
            "subject": subject,
            "datacontenttype": "application/json",
            "dataschema": f"urn:loopline:schema:{data.TYPE}",
            "episodeid": self.episode_id,
            "seq": seq,
            "tenant": self.tenant,
            "traceparent": traceparent,
            "prevhash": prevhash,
        }
        canonical = canonical_json(
            {**attributes, "time": _TIME.dump_python(when, mode="json"), "data": data.model_dump(mode="json")}
        )
        digest = hashlib.sha256(canonical).hexdigest()
        event = Event.model_construct(**attributes, time=when, hash=digest, data=data)
        self.next_seq = seq + 1
        self.prevhash = digest
        return SealedEvent(event, b"".join((canonical[:-1], b',"hash":"', digest.encode(), b'"}')))


def _check_stream(episode_id: str, tenant: str, source: str, next_seq: int, prevhash: str) -> None:
    """Validate a stream's constant attributes with the envelope's own rules, once."""
    probe = {
        "id": "probe",
        "source": source,
        "type": "loopline.probe.v1",
        "time": datetime.now(UTC),
        "episodeid": episode_id,
        "seq": next_seq,
        "tenant": tenant,
        "prevhash": prevhash,
        "hash": GENESIS_HASH,
    }
    errors = [e for e in _probe_errors(probe) if e["loc"][0] != "data"]
    if errors:
        where = ", ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
        raise ValueError(f"invalid stream attributes: {where}")


def _probe_errors(probe: dict[str, Any]) -> list[Any]:
    try:
        Event.model_validate({**probe, "data": {}})
    except ValidationError as exc:
        return list(exc.errors())
    return []


@dataclass(frozen=True)
class ChainBreak:
    """The first broken link of a stream."""

    index: int
    """Position in the list that was verified."""
    event_id: str | None
    """Id of the offending event."""
    seq: int | None
    """Its `seq`."""
    reason: str
    """What is wrong, in words."""

    def __str__(self) -> str:
        return f"event #{self.index} (seq={self.seq}, id={self.event_id}): {self.reason}"


def verify_chain(events: Iterable[Event | Mapping[str, Any]], *, start_seq: int = 0) -> ChainBreak | None:
    """Check a stream in `seq` order; None when intact, else the first broken link.

    Accepts decoded events or their structured JSON dicts (as stored), so old versions verify too.
    """
    prev = GENESIS_HASH if start_seq == 0 else None
    stream: str | None = None
    for index, item in enumerate(events):
        doc = item.model_dump(mode="json") if isinstance(item, Event) else item
        event_id, seq = doc.get("id"), doc.get("seq")

        def broken(reason: str, event_id: Any = event_id, seq: Any = seq, index: int = index) -> ChainBreak:
            return ChainBreak(index, event_id, seq, reason)

        if stream is None:
            stream = doc.get("episodeid")
        elif doc.get("episodeid") != stream:
            return broken(f"belongs to stream {doc.get('episodeid')!r}, not {stream!r}")
        if seq != start_seq + index:
            return broken(f"seq {seq} where {start_seq + index} was expected (gap, reorder or duplicate)")
        if prev is not None and doc.get("prevhash") != prev:
            return broken(
                "prevhash does not match the previous event's hash (an event was removed or replaced)"
            )
        expected = hash_structured(doc)
        if doc.get("hash") != expected:
            return broken("hash does not match the content (the event was edited)")
        prev = expected
    return None
