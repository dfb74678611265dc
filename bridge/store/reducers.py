"""Pure reducers: one function per event type, from an event to the projection changes it causes.

No I/O and no reading of current state: an event alone decides its ops, which is what lets the
projector apply them only when the archive insert really inserted, and lets a rebuild replay them.
Event types without projection effects (verifier scores, adapter and task events) reduce to nothing;
they are still archived.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bridge.store.ops import (
    EdgeCaseRecorded,
    EpisodeClosed,
    EpisodeCounted,
    EpisodeEscalated,
    EpisodeOpened,
    OutcomeRecorded,
    ProjectionOp,
    ToolCallClosed,
    ToolCallOpened,
    ToolRateCounted,
)
from schemas.envelope import Event
from schemas.events import (
    EdgeCaseDetected,
    EpisodeEnded,
    EpisodeInterrupted,
    EpisodeStarted,
    Escalated,
    HumanIntervened,
    ModelResponded,
    OutcomeObserved,
    ToolCalled,
    ToolFailed,
    ToolReturned,
)
from schemas.registry import EventData
from schemas.tools import ToolOutcome

Reducer = Callable[[Event, Any], tuple[ProjectionOp, ...]]


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def episode_started(event: Event, data: EpisodeStarted) -> tuple[ProjectionOp, ...]:
    item, policy = data.work_item, data.policy
    return (
        EpisodeOpened(
            episode_id=event.episodeid,
            tenant=event.tenant,
            work_item_id=item.item_id,
            work_item_kind=item.kind,
            work_item_domain=item.domain,
            task_id=data.task_id,
            policy_model=policy.model,
            policy_adapter_id=policy.adapter_id,
            policy_route=policy.route,
            started_at=event.time,
        ),
    )


def model_responded(event: Event, data: ModelResponded) -> tuple[ProjectionOp, ...]:
    return (EpisodeCounted(event.episodeid, event.tenant, steps=1),)


def tool_called(event: Event, data: ToolCalled) -> tuple[ProjectionOp, ...]:
    call = data.call
    return (
        EpisodeCounted(event.episodeid, event.tenant, tool_calls=1),
        ToolCallOpened(
            episode_id=event.episodeid,
            call_id=call.call_id,
            tenant=event.tenant,
            tool=call.name,
            arguments=_json(call.arguments),
            side_effect=data.side_effect.value if data.side_effect else None,
            called_at=event.time,
            called_seq=event.seq,
        ),
        ToolRateCounted(call.name, calls=1),
    )


def tool_returned(event: Event, data: ToolReturned) -> tuple[ProjectionOp, ...]:
    return (
        ToolCallClosed(
            episode_id=event.episodeid,
            call_id=data.call_id,
            tenant=event.tenant,
            tool=data.name,
            outcome=ToolOutcome.OK.value,
            error_kind=None,
            error_message=None,
            http_status=None,
            latency_ms=data.latency_ms,
            attempts=1,
            finished_at=event.time,
        ),
    )


def tool_failed(event: Event, data: ToolFailed) -> tuple[ProjectionOp, ...]:
    unknown = data.outcome == ToolOutcome.UNKNOWN
    return (
        ToolCallClosed(
            episode_id=event.episodeid,
            call_id=data.call_id,
            tenant=event.tenant,
            tool=data.name,
            outcome=data.outcome.value,
            error_kind=data.error.kind,
            error_message=data.error.message,
            http_status=data.error.status_code,
            latency_ms=data.latency_ms,
            attempts=data.attempts,
            finished_at=event.time,
        ),
        ToolRateCounted(data.name, failures=0 if unknown else 1, unknown=1 if unknown else 0),
    )


def escalated(event: Event, data: Escalated) -> tuple[ProjectionOp, ...]:
    return (EpisodeEscalated(event.episodeid, event.tenant, data.reason),)


def human_intervened(event: Event, data: HumanIntervened) -> tuple[ProjectionOp, ...]:
    return (EpisodeCounted(event.episodeid, event.tenant, human_actions=1),)


def episode_ended(event: Event, data: EpisodeEnded) -> tuple[ProjectionOp, ...]:
    return (EpisodeClosed(event.episodeid, event.tenant, data.status, event.time, data.duration_ms),)


def episode_interrupted(event: Event, data: EpisodeInterrupted) -> tuple[ProjectionOp, ...]:
    # Closed by the bridge after a crash or a shutdown: how long it ran is not known.
    return (EpisodeClosed(event.episodeid, event.tenant, "interrupted", event.time, None),)


def outcome_observed(event: Event, data: OutcomeObserved) -> tuple[ProjectionOp, ...]:
    # An outcome is appended to its episode's own stream (the observer resumes the chain from the
    # archive's tip), so `episodeid` is the episode it is about.
    return (
        OutcomeRecorded(
            event_id=event.id,
            source=event.source,
            episode_id=event.episodeid,
            tenant=event.tenant,
            seq=event.seq,
            item_id=data.item_id,
            kind=data.kind,
            amount=None if data.amount is None else str(data.amount),
            reason_codes=_json(list(data.reason_codes)),
            observed_at=data.observed_at,
        ),
    )


def edge_case_detected(event: Event, data: EdgeCaseDetected) -> tuple[ProjectionOp, ...]:
    return (
        EdgeCaseRecorded(
            fingerprint=data.fingerprint,
            rule=data.rule,
            severity=data.severity,
            summary=data.summary,
            tenant=event.tenant,
            episode_id=data.source_episode_id,
            seen_at=event.time,
            seq=event.seq,
            event_id=event.id,
            hash=event.hash,
            evidence=_json(data.evidence),
        ),
    )


REDUCERS: dict[type[EventData], Reducer] = {
    EpisodeStarted: episode_started,
    ModelResponded: model_responded,
    ToolCalled: tool_called,
    ToolReturned: tool_returned,
    ToolFailed: tool_failed,
    Escalated: escalated,
    HumanIntervened: human_intervened,
    EpisodeEnded: episode_ended,
    EpisodeInterrupted: episode_interrupted,
    OutcomeObserved: outcome_observed,
    EdgeCaseDetected: edge_case_detected,
}
"""Event data model → reducer; types not listed have no projection effects."""


def reduce_event(event: Event) -> tuple[ProjectionOp, ...]:
    """The projection changes `event` causes."""
    reducer = REDUCERS.get(type(event.data))
    return reducer(event, event.data) if reducer else ()
