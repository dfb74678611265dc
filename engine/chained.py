"""`ChainRecorder`: the events of the `Recorder` port, built once for every recorder.

It turns what the engine reports into event data (types, subjects, the checks on results) and
hands each to `_emit`. `MemoryRecorder` keeps them in a list; the bridge's `EpisodeRecorder`
redacts PHI through the `_redact` and `_scrub` hooks and writes each to a durable sink, so a rollout
records what production records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from schemas.chain import EpisodeChain
from schemas.envelope import Event
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    EpisodeStatus,
    Escalated,
    EscalationTrigger,
    ModelResponded,
    PolicyRef,
    ToolCalled,
    ToolFailed,
    ToolReturned,
    VerifierScored,
)
from schemas.registry import EventData
from schemas.tasks import WorkItem
from schemas.tools import SideEffect, ToolCall, ToolOutcome, ToolResult


class ChainRecorder:
    """Builds one episode's events on `_chain`; subclasses say where each goes (`_emit`)."""

    _chain: EpisodeChain

    @property
    def episode_id(self) -> str:
        """The episode (stream) this recorder writes."""
        return self._chain.episode_id

    def _emit(self, data: EventData, subject: str | None = None) -> Event:
        raise NotImplementedError

    def _redact(self, model: type[BaseModel] | None, data: dict[str, Any]) -> dict[str, Any]:
        """Structured data as it may be recorded (as given, unless a subclass redacts)."""
        return data

    def _scrub(self, text: str | None) -> str | None:
        """Free text as it may be recorded (as given, unless a subclass scrubs)."""
        return text

    def _redact_snapshot(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """A world snapshot as it may be recorded (as given, unless a subclass redacts)."""
        return snapshot

    def _args_model(self, tool: str) -> type[BaseModel] | None:
        """The argument model a policy's call to `tool` is redacted by."""
        return None

    def _redact_call(self, call: ToolCall, args_model: type[BaseModel] | None) -> ToolCall:
        arguments = self._redact(args_model, call.arguments)
        return call if arguments is call.arguments else call.model_copy(update={"arguments": arguments})

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
            world_snapshot = self._redact_snapshot(world_snapshot)
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

    def model_responded(self, data: ModelResponded) -> Event:
        """Record one policy turn; the arguments of the calls it asked for are redacted by tool."""
        calls = tuple(self._redact_call(c, self._args_model(c.name)) for c in data.tool_calls)
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

    def scored(self, data: VerifierScored) -> Event:
        """Record a verifier's verdict on the episode (after its end): each check's explanation is
        free text, scrubbed like every other."""
        checks = tuple(
            c.model_copy(update={"explanation": self._scrub(c.explanation) or ""})
            for c in data.verdict.checks
        )
        verdict = data.verdict.model_copy(update={"checks": checks})
        return self._emit(data.model_copy(update={"verdict": verdict}))
