"""Closing the episodes a crash or a shutdown left open, with `episode.interrupted`.

The outbox keeps every stream's last row, so at start-up (and at the end of a drain) the bridge
finds each episode whose last event does not close it, reads what it recorded (the last tool call
and whether a result followed), and appends `episode.interrupted` to its chain. A call recorded
without a result names itself: if it could change the live system (a write, or a tool of unknown
side effect), `effect_unknown` is true and a human must check it (the detector makes it a
high-severity edge case). Only the process holding the outbox's lock writes its streams, so this
append forks nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bridge.capture.outbox import SqliteOutbox
from bridge.phi import Redactor
from bridge.recording.recorder import EpisodeRecorder
from schemas import Event
from schemas.events import EpisodeInterrupted
from schemas.tools import SideEffect

CLOSING_TYPES = frozenset(
    {"loopline.episode.ended.v1", "loopline.episode.interrupted.v1", "loopline.outcome.observed.v1"}
)
"""A stream whose last event is one of these is closed (an outcome follows the end)."""
_CALLED, _RESULTS = "loopline.tool.called.v1", ("loopline.tool.returned.v1", "loopline.tool.failed.v1")


def interruption(events: Sequence[dict[str, Any]], reason: str) -> EpisodeInterrupted:
    """What closes a stream cut off after `events` (its stored events, in seq order): the last
    event, the call it names and whether its effect is unknown. The call named is the last one
    without a result that could change the live system, when there is one (of parallel calls, a
    later read may have answered while a write is still out), else the last call."""
    last = events[-1]
    calls = [e for e in events if e["type"] == _CALLED]
    answered = {e["data"].get("call_id") for e in events if e["type"] in _RESULTS}
    if not calls:
        return EpisodeInterrupted(reason=reason, last_seq=last["seq"], last_event_type=last["type"])
    uncertain = [e for e in calls if e["data"]["call"]["call_id"] not in answered and not _reads(e["data"])]
    call = (uncertain or calls)[-1]["data"]
    side_effect = _effect(call)
    in_flight = call["call"]["call_id"] not in answered
    return EpisodeInterrupted(
        reason=reason,
        last_seq=last["seq"],
        last_event_type=last["type"],
        last_call_id=call["call"]["call_id"],
        last_tool=call["call"]["name"],
        last_side_effect=side_effect,
        effect_unknown=in_flight and side_effect is not SideEffect.READ,
    )


def _effect(call: dict[str, Any]) -> SideEffect | None:
    raw = call.get("side_effect")
    return SideEffect(raw) if raw is not None else None


def _reads(call: dict[str, Any]) -> bool:
    return _effect(call) is SideEffect.READ


def close_interrupted(outbox: SqliteOutbox, redactor: Redactor, source: str, reason: str) -> list[Event]:
    """Append `episode.interrupted` to every open episode of `outbox`; the events written."""
    written = []
    for row in outbox.last_rows():
        if row.structured().get("type") in CLOSING_TYPES:
            continue
        events = outbox.events(row.episode_id)
        head = outbox.stream_head(row.episode_id)
        trace = next((e["traceparent"] for e in events if e.get("traceparent")), None)
        recorder = EpisodeRecorder(
            row.episode_id, sink=outbox, redactor=redactor, source=source, head=head, traceparent=trace
        )
        written.append(recorder.interrupted(interruption(events, reason)))
    return written
