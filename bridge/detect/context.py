"""What a rule may look at besides the event: episode context from the projections, DLQ records."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.detect.config import DetectConfig


@dataclass(frozen=True)
class EpisodeContext:
    """An episode as the projections know it, for rules that judge an event against its episode."""

    episode_id: str
    status: str | None
    """`running`, or how it ended."""
    ok_writes: tuple[str, ...] = ()
    """Tools with write or irreversible effects that returned ok, in call order."""


@dataclass(frozen=True)
class RuleContext:
    """Everything a rule gets besides the event."""

    config: DetectConfig
    episode: EpisodeContext | None = None
    """The event's episode, when the caller looked it up (only outcome rules need it)."""
    latency_baseline_ms: float | None = None
    """The configured percentile of the tool's recent latencies, once there are enough samples."""


@dataclass(frozen=True)
class Rejected:
    """A message that reached the dead-letter topic, as far as its headers tell."""

    reason_code: str
    """Short stable category, e.g. `not_json`, `hash_mismatch`."""
    reason: str
    """The full reason."""
    topic: str
    event_type: str | None = None
    source: str | None = None
    episode_id: str | None = None
    tenant: str | None = None
    event_id: str | None = None
