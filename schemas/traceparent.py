"""W3C Trace Context on the envelope: the `traceparent` every episode event carries.

An episode runs in one trace. A caller that sends a valid `traceparent` header puts the episode in
its trace, under its span; without one, the episode's trace is derived from its id, and so is the
span the episode's own root span is (`episode_traceparent`), so the events of one episode, the
exporters and a later outcome all agree on the trace without keeping any state.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_HEADER = re.compile(
    r"^(?P<version>[0-9a-f]{2})-(?P<trace>[0-9a-f]{32})-(?P<span>[0-9a-f]{16})-(?P<flags>[0-9a-f]{2})"
)


@dataclass(frozen=True)
class TraceParent:
    """A parsed `traceparent`: the trace, the parent span, the flags."""

    trace_id: str
    """32 lowercase hex digits, never all zero."""
    parent_id: str
    """16 lowercase hex digits, never all zero."""
    flags: str
    """2 hex digits (`01`: sampled)."""

    def header(self) -> str:
        """The version-00 header value."""
        return f"00-{self.trace_id}-{self.parent_id}-{self.flags}"


def parse_traceparent(value: str | None) -> TraceParent | None:
    """The context of a `traceparent` header, or None when it is absent or invalid (W3C: an invalid
    header is ignored, not an error). Versions above 00 are read by their first four fields."""
    if not value:
        return None
    found = _HEADER.match(value.strip())
    if found is None or found["version"] == "ff":
        return None
    if found["version"] == "00" and len(value.strip()) != 55:
        return None
    if set(found["trace"]) == {"0"} or set(found["span"]) == {"0"}:
        return None
    return TraceParent(found["trace"], found["span"], found["flags"])


def _digest(kind: str, episode_id: str, digits: int) -> str:
    return hashlib.sha256(f"loopline-{kind}:{episode_id}".encode()).hexdigest()[:digits]


def episode_traceparent(episode_id: str) -> str:
    """The episode's own trace context when no caller gave one: its trace and its root span,
    derived from the episode id."""
    return TraceParent(_digest("trace", episode_id, 32), root_span_id(episode_id), "01").header()


def root_span_id(episode_id: str) -> str:
    """The span id of the episode's root span (16 hex digits)."""
    return _digest("root", episode_id, 16)
