"""The CloudEvents 1.0 envelope every Loopline event travels in (design.md §3).

Attributes: the CloudEvents core (`specversion`, `id` as UUIDv7, `source`, `type`, `subject`, `time`,
`datacontenttype`, `dataschema`) plus extensions `episodeid`, `seq` (gap-free per episode), `tenant`,
`traceparent`, and `prevhash`/`hash`, a SHA-256 chain per episode.

`episodeid` names the stream an event belongs to: the episode for episode events; for events about
other aggregates (a task, an adapter) it is that aggregate's stream id, e.g. `adapter:<id>`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import Field, SerializeAsAny, ValidationInfo, field_validator

from schemas.base import PRINTABLE, Contract
from schemas.registry import DEFAULT_REGISTRY, EventData

GENESIS_HASH = "0" * 64
"""`prevhash` of an episode's first event."""

HASH_PATTERN = r"^[0-9a-f]{64}$"


class Event(Contract):
    """One immutable fact, in a CloudEvents envelope with a per-episode hash chain."""

    specversion: Literal["1.0"] = "1.0"
    """CloudEvents spec version."""
    id: str = Field(min_length=1, max_length=64, pattern=PRINTABLE)
    """UUIDv7; with `source` it identifies the event for deduplication."""
    source: str = Field(min_length=1, max_length=256, pattern=PRINTABLE)
    """URI-reference of the producer, e.g. `loopline://bridge/rcm`."""
    type: str = Field(min_length=1, max_length=128, pattern=r"^loopline\.[a-z_.]+\.v[0-9]+$")
    """Event type with its major version, e.g. `loopline.tool.called.v1`."""
    subject: str | None = Field(default=None, max_length=256, pattern=PRINTABLE)
    """What the event is about within the episode, e.g. a claim id or a tool name."""
    time: datetime
    """When the fact happened (UTC)."""
    datacontenttype: Literal["application/json"] = "application/json"
    """Always JSON."""
    dataschema: str | None = Field(default=None, max_length=256)
    """URI of the JSON Schema of `data`."""
    episodeid: str = Field(min_length=1, max_length=128, pattern=PRINTABLE)
    """Stream id: the episode, or `task:<id>` / `adapter:<id>` for non-episode facts."""
    seq: int = Field(ge=0)
    """Position in the stream, gap-free from 0."""
    tenant: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    """Tenant (a billing office, a fund)."""
    traceparent: str | None = Field(default=None, max_length=64)
    """W3C trace context of the producing request."""
    prevhash: str = Field(pattern=HASH_PATTERN)
    """`hash` of the previous event in the stream; GENESIS_HASH for the first."""
    hash: str = Field(pattern=HASH_PATTERN)
    """SHA-256 over this event's canonical JSON without `hash`."""
    data: SerializeAsAny[EventData]
    """The event's data, of the model registered for `type`."""

    @field_validator("time")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("time must be timezone-aware")
        return value.astimezone(UTC)

    @field_validator("data", mode="before")
    @classmethod
    def _typed_data(cls, value: Any, info: ValidationInfo) -> Any:
        event_type = info.data.get("type")
        if event_type is None:
            raise ValueError("cannot validate data without a valid type")
        registry = (info.context or {}).get("registry", DEFAULT_REGISTRY)
        model = registry.model_for(event_type)
        if isinstance(value, model):
            return value
        if isinstance(value, EventData):
            raise ValueError(f"data is {type(value).__name__}, type {event_type} needs {model.__name__}")
        return model.model_validate(value)
