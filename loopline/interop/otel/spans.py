"""One episode's events as the plan of one trace: an `invoke_agent` root span for the episode, a
`chat` span per model turn and an `execute_tool` span per tool call under it, and the verifier's
verdict as a `gen_ai.evaluation.result` event on the root. Pure.

Ids: the trace is the episode's `traceparent` (`schemas.traceparent`). When that is the episode's
own, the root span is the span it names; when a caller gave it, the root is a child of the
caller's span. Every other span id is derived from the episode id and the event's `seq`, so
exporting an episode twice sends the same spans.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from loopline.interop.otel import genai
from schemas.envelope import Event
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    ModelResponded,
    ToolCalled,
    ToolFailed,
    ToolReturned,
    VerifierScored,
)
from schemas.traceparent import episode_traceparent, parse_traceparent, root_span_id

Attributes = dict[str, str | bool | int | float | Sequence[str]]


@dataclass(frozen=True)
class SpanEvent:
    """An event on a span."""

    name: str
    time: datetime
    attributes: Attributes


@dataclass(frozen=True)
class SpanPlan:
    """One span to send."""

    name: str
    span_id: str
    parent_id: str | None
    start: datetime
    end: datetime
    attributes: Attributes
    kind: Literal["internal", "client"] = "internal"
    error: str | None = None
    """Why the span failed (its status is then an error)."""
    events: tuple[SpanEvent, ...] = field(default=())


@dataclass(frozen=True)
class TracePlan:
    """One episode's trace."""

    trace_id: str
    remote_parent: str | None
    """The caller's span the root hangs under (None when the episode's trace is its own)."""
    spans: tuple[SpanPlan, ...]


def _span_id(episode_id: str, seq: int) -> str:
    return hashlib.sha256(f"loopline-span:{episode_id}:{seq}".encode()).hexdigest()[:16]


def episode_trace(stream: Sequence[Event]) -> TracePlan:
    """The trace of one episode's events; raises `ValueError` when they hold no episode."""
    events = sorted(stream, key=lambda e: e.seq)
    first = next((e for e in events if isinstance(e.data, EpisodeStarted)), None)
    if first is None or not isinstance(first.data, EpisodeStarted):
        raise ValueError("not an episode: no episode.started in the stream")
    started, episode_id = first.data, first.episodeid
    own = episode_traceparent(episode_id)
    context = parse_traceparent(first.traceparent or own)
    assert context is not None  # both come from the recorder or `episode_traceparent`
    caller = None if (first.traceparent or own) == own else context.parent_id
    root = root_span_id(episode_id) if caller is None else _span_id(episode_id, -1)
    model = started.policy.model
    spans: list[SpanPlan] = []
    results = {e.data.call_id: e for e in events if isinstance(e.data, ToolReturned | ToolFailed)}
    for event in events:
        data = event.data
        if isinstance(data, ModelResponded):
            attributes: Attributes = {
                genai.OPERATION_NAME: genai.CHAT,
                genai.PROVIDER_NAME: genai.PROVIDER,
                genai.REQUEST_MODEL: model,
                genai.REQUEST_TEMPERATURE: data.sampling.temperature,
                genai.REQUEST_TOP_P: data.sampling.top_p,
                genai.CONVERSATION_ID: episode_id,
            }
            if data.sampling.max_tokens is not None:
                attributes[genai.REQUEST_MAX_TOKENS] = data.sampling.max_tokens
            if data.sampling.seed is not None:
                attributes[genai.REQUEST_SEED] = data.sampling.seed
            if data.finish_reason:
                attributes[genai.RESPONSE_FINISH_REASONS] = [data.finish_reason]
            if data.prompt_tokens is not None:
                attributes[genai.USAGE_INPUT_TOKENS] = data.prompt_tokens
            if data.completion_tokens is not None:
                attributes[genai.USAGE_OUTPUT_TOKENS] = data.completion_tokens
            spans.append(
                SpanPlan(
                    f"{genai.CHAT} {model}",
                    _span_id(episode_id, event.seq),
                    root,
                    event.time - timedelta(milliseconds=data.latency_ms),
                    event.time,
                    attributes,
                    kind="client",
                    error="invalid_reply" if data.invalid_reason else None,
                )
            )
        elif isinstance(data, ToolCalled):
            answer = results.get(data.call.call_id)
            failed = answer.data if answer is not None and isinstance(answer.data, ToolFailed) else None
            spans.append(
                SpanPlan(
                    f"{genai.EXECUTE_TOOL} {data.call.name}",
                    _span_id(episode_id, event.seq),
                    root,
                    event.time,
                    answer.time if answer is not None else event.time,
                    {
                        genai.OPERATION_NAME: genai.EXECUTE_TOOL,
                        genai.TOOL_NAME: data.call.name,
                        genai.TOOL_CALL_ID: data.call.call_id,
                        genai.TOOL_TYPE: "function",
                        **({genai.ERROR_TYPE: failed.error.kind} if failed is not None else {}),
                    },
                    error=failed.error.kind if failed is not None else None,
                )
            )
    ended = next((e for e in reversed(events) if isinstance(e.data, EpisodeEnded)), None)
    scored = [e for e in events if isinstance(e.data, VerifierScored)]
    verdicts = tuple(
        SpanEvent(
            genai.EVALUATION_RESULT_EVENT,
            e.time,
            {
                genai.EVALUATION_NAME: e.data.verdict.verifier,
                genai.EVALUATION_SCORE_VALUE: e.data.verdict.score,
                genai.EVALUATION_SCORE_LABEL: "pass" if e.data.verdict.passed else "fail",
            },
        )
        for e in scored
        if isinstance(e.data, VerifierScored)
    )
    status = ended.data.status if ended is not None and isinstance(ended.data, EpisodeEnded) else "open"
    root_attributes: Attributes = {
        genai.OPERATION_NAME: genai.INVOKE_AGENT,
        genai.PROVIDER_NAME: genai.PROVIDER,
        genai.AGENT_NAME: model,
        genai.AGENT_ID: started.policy.adapter_id or model,
        genai.CONVERSATION_ID: episode_id,
        genai.REQUEST_MODEL: model,
        "loopline.work_item.id": started.work_item.item_id,
        "loopline.work_item.domain": started.work_item.domain,
        "loopline.episode.status": status,
        "loopline.policy.route": started.policy.route,
    }
    last = ended if ended is not None else events[-1]
    spans.insert(
        0,
        SpanPlan(
            f"{genai.INVOKE_AGENT} {model}",
            root,
            caller,
            first.time,
            max(last.time, *(s.end for s in spans)) if spans else last.time,
            root_attributes,
            error=status if status == "failed" else None,
            events=verdicts,
        ),
    )
    return TracePlan(context.trace_id, caller, tuple(spans))
