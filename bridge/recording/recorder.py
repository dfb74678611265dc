"""`EpisodeRecorder`: what the agent runtime calls to record one episode, event by event.

Each method redacts PHI (schema-driven, `bridge.phi.Redactor`), seals the next event of the
episode's hash chain (`schemas.EpisodeChain`) and returns once the sink holds it durably. When the
sink refuses an event the chain is rolled back, so the next event takes the same seq: no gap.

World snapshots hold PHI like payloads but have no model on the event, so a snapshot is refused
unless the recorder has a `snapshot_redact`. Free text has no schema, so it is scrubbed instead
(`Redactor.scrub`): work-item instructions, the model's text and raw replies, tool error messages,
escalation reasons and recommendations, notes, final messages and an outcome's external reference
lose every value the episode's PHI fields held (exact and usual forms) and every pattern-class
match (docs/capture.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel

from bridge.phi import KnownPhi, Redactor, SnapshotRedact
from bridge.recording.sink import GENESIS_HEAD, StreamHead
from engine import EventSink
from schemas import (
    EpisodeChain,
    Event,
    EventData,
    SideEffect,
    ToolCall,
    ToolOutcome,
    ToolResult,
    WorkItem,
    new_id,
)
from schemas.events import (
    EpisodeEnded,
    EpisodeInterrupted,
    EpisodeStarted,
    EpisodeStatus,
    Escalated,
    EscalationTrigger,
    HumanIntervened,
    ModelResponded,
    OutcomeObserved,
    PolicyRef,
    ToolCalled,
    ToolFailed,
    ToolReturned,
)
from schemas.traceparent import episode_traceparent

HumanAction = Literal["approve", "reject", "override", "takeover", "annotate"]


def utc_now() -> datetime:
    """The current time, timezone-aware (the chain's default clock)."""
    return datetime.now(UTC)


class EpisodeRecorder:
    """Records the events of one episode. Not thread-safe: one episode is worked by one thread."""

    def __init__(
        self,
        episode_id: str,
        *,
        sink: EventSink,
        redactor: Redactor,
        source: str,
        head: StreamHead = GENESIS_HEAD,
        args_models: Mapping[str, type[BaseModel]] | None = None,
        snapshot_redact: SnapshotRedact | None = None,
        traceparent: str | None = None,
        clock: Callable[[], datetime] = utc_now,
        id_factory: Callable[[], str] = new_id,
        known: KnownPhi | None = None,
    ) -> None:
        self._chain = EpisodeChain(
            episode_id,
            tenant=redactor.tenant,
            source=source,
            next_seq=head.next_seq,
            prevhash=head.prevhash,
            clock=clock,
            id_factory=id_factory,
        )
        # Every event names the episode's trace: the caller's context, or the episode's own.
        self._traceparent = traceparent or episode_traceparent(episode_id)
        self._sink, self._redactor = sink, redactor
        self._args_models = dict(args_models or {})
        self._snapshot_redact = snapshot_redact
        self._known = known if known is not None else KnownPhi()  # what the episode showed so far

    @property
    def episode_id(self) -> str:
        """The episode (stream) this recorder writes."""
        return self._chain.episode_id

    @property
    def head(self) -> StreamHead:
        """Where the stream continues: next seq and the last event's hash."""
        return StreamHead(self._chain.next_seq, self._chain.prevhash)

    def _emit(self, data: EventData, subject: str | None = None) -> Event:
        seq, prevhash = self._chain.next_seq, self._chain.prevhash
        event, doc = self._chain.seal(data, subject=subject, traceparent=self._traceparent)
        try:
            self._sink.append(event, doc)
        except BaseException:
            self._chain.next_seq, self._chain.prevhash = seq, prevhash  # no gap: reuse the seq
            raise
        return event

    def _redact(self, model: type[BaseModel] | None, data: dict[str, Any]) -> dict[str, Any]:
        return self._redactor.redact(model, data, self._known) if data else data

    def _scrub(self, text: str | None) -> str | None:
        return self._redactor.scrub(text, self._known) if text else text

    def started(
        self,
        work_item: WorkItem,
        *,
        payload_model: type[BaseModel] | None,
        policy: PolicyRef,
        tools: Sequence[str],
        tools_hash: str,
        system_prompt_hash: str,
        max_steps: int,
        max_seconds: float,
        world_snapshot: dict[str, Any] | None = None,
        task_id: str | None = None,
    ) -> Event:
        """Record `episode.started`: the work item (payload redacted) and the episode's set-up."""
        if self._chain.next_seq != 0:
            raise ValueError(
                f"episode {self.episode_id} has already started (next seq {self._chain.next_seq})"
            )
        if world_snapshot is not None:
            if self._snapshot_redact is None:
                raise ValueError(
                    "a world snapshot holds PHI; build the recorder with snapshot_redact "
                    "(Redactor.snapshot_redactor(model), or an identity function for synthetic worlds)"
                )
            world_snapshot = self._snapshot_redact(world_snapshot)
        payload = self._redact(payload_model, work_item.payload)
        instructions = self._scrub(work_item.instructions) or ""
        if payload is not work_item.payload or instructions != work_item.instructions:
            work_item = work_item.model_copy(update={"payload": payload, "instructions": instructions})
        data = EpisodeStarted(
            work_item=work_item,
            policy=policy,
            tools=tuple(tools),
            tools_hash=tools_hash,
            system_prompt_hash=system_prompt_hash,
            world_snapshot=world_snapshot,
            task_id=task_id,
            max_steps=max_steps,
            max_seconds=max_seconds,
        )
        return self._emit(data, subject=work_item.item_id)

    def _redact_call(self, call: ToolCall, args_model: type[BaseModel] | None) -> ToolCall:
        arguments = self._redact(args_model, call.arguments)
        return call if arguments is call.arguments else call.model_copy(update={"arguments": arguments})

    def model_responded(self, data: ModelResponded) -> Event:
        """Record one policy turn; the arguments of the calls it asked for are redacted by tool."""
        calls = tuple(self._redact_call(c, self._args_models.get(c.name)) for c in data.tool_calls)
        texts = {"content": data.content, "raw": data.raw, "invalid_reason": data.invalid_reason}
        update: dict[str, Any] = {key: self._scrub(text) for key, text in texts.items() if text}
        if any(new is not old for new, old in zip(calls, data.tool_calls, strict=True)):
            update["tool_calls"] = calls
        if any(update.get(key, text) != text for key, text in texts.items()) or "tool_calls" in update:
            data = data.model_copy(update=update)
        return self._emit(data)

    def tool_called(
        self, call: ToolCall, side_effect: SideEffect | None, args_model: type[BaseModel] | None
    ) -> Event:
        """Record a tool call before it runs (arguments redacted by `args_model`)."""
        return self._emit(
            ToolCalled(call=self._redact_call(call, args_model), side_effect=side_effect), call.name
        )

    def tool_returned(self, result: ToolResult, result_model: type[BaseModel] | None) -> Event:
        """Record an ok tool result (redacted by `result_model`)."""
        if result.outcome is not ToolOutcome.OK or result.result is None:
            raise ValueError(f"tool_returned needs an ok result with a value, got {result.outcome}")
        data = ToolReturned(
            call_id=result.call_id,
            name=result.name,
            latency_ms=result.latency_ms,
            result=self._redact(result_model, result.result),
        )
        return self._emit(data, result.name)

    def tool_failed(
        self, result: ToolResult, attempts: int = 1, *, details_model: type[BaseModel] | None = None
    ) -> Event:
        """Record a failed or unknown tool result; `error.details` is redacted like any data."""
        if result.outcome is ToolOutcome.OK or result.error is None:
            raise ValueError("tool_failed needs a failed or unknown result with an error")
        error = result.error
        details = self._redact(details_model, error.details)
        message = self._scrub(error.message) or ""
        if details is not error.details or message != error.message:
            error = error.model_copy(update={"details": details, "message": message})
        outcome = ToolOutcome.UNKNOWN if result.outcome is ToolOutcome.UNKNOWN else ToolOutcome.FAILED
        data = ToolFailed(
            call_id=result.call_id,
            name=result.name,
            error=error,
            outcome=outcome,
            attempts=attempts,
            latency_ms=result.latency_ms,
        )
        return self._emit(data, result.name)

    def escalated(
        self,
        reason: str,
        *,
        trigger: EscalationTrigger,
        recommendation: str | None = None,
        queue: str | None = None,
    ) -> Event:
        """Record a hand-off to a human."""
        scrubbed = Escalated(
            reason=self._scrub(reason) or "",
            trigger=trigger,
            recommendation=self._scrub(recommendation),
            queue=queue,
        )
        return self._emit(scrubbed)

    def human_intervened(
        self,
        actor: str,
        role: str,
        action: HumanAction,
        *,
        note: str = "",
        payload: dict[str, Any] | None = None,
        payload_model: type[BaseModel] | None = None,
    ) -> Event:
        """Record what a human did (`payload` redacted by `payload_model`)."""
        payload = self._redact(payload_model, payload or {})
        data = HumanIntervened(
            actor=actor, role=role, action=action, note=self._scrub(note) or "", payload=payload
        )
        return self._emit(data)

    def ended(
        self,
        status: EpisodeStatus,
        *,
        steps: int,
        tool_calls: int,
        duration_ms: float,
        final_message: str | None = None,
        world_hash: str | None = None,
    ) -> Event:
        """Record `episode.ended`."""
        return self._emit(
            EpisodeEnded(
                status=status,
                steps=steps,
                tool_calls=tool_calls,
                duration_ms=duration_ms,
                final_message=self._scrub(final_message),
                world_hash=world_hash,
            )
        )

    def interrupted(self, data: EpisodeInterrupted) -> Event:
        """Record that the episode was cut off and is closed by its bridge (`bridge.capture.recovery`)."""
        return self._emit(data.model_copy(update={"reason": self._scrub(data.reason) or "interrupted"}))

    def outcome_observed(
        self, data: OutcomeObserved, *, details_model: type[BaseModel] | None = None
    ) -> Event:
        """Record a later business fact about the episode's work item."""
        details = self._redact(details_model, data.details)
        external_ref = self._scrub(data.external_ref)
        if details is not data.details or external_ref != data.external_ref:
            data = data.model_copy(update={"details": details, "external_ref": external_ref})
        return self._emit(data, data.item_id)
