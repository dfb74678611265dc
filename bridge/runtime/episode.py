"""One episode in progress: the loop of policy turns and tool calls, and every way it can end.

Order of facts, always: `episode.started`, then per turn `model.responded` followed by
`tool.called` + (`tool.returned` | `tool.failed`) for each call it asked for, then at most one
`escalated`, then `episode.ended`. Every way out records `episode.ended`, so no episode is left
open in the record, not even one cut short by a bug (which is recorded, then re-raised).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from adapters import Toolbox, ToolSpec
from bridge.runtime.config import EpisodeResult, RunnerConfig
from bridge.runtime.escalation import escalation_fields, run_builtin_escalate
from bridge.runtime.policy import Message, PolicyClient, PolicyError, PolicyReply
from bridge.runtime.prompt import (
    assistant_message,
    correction_message,
    invalid_assistant_message,
    tool_message,
)
from bridge.runtime.recorder import EpisodeStatus, EscalationTrigger, Recorder
from bridge.runtime.validate import ReplyCheck, check_reply
from schemas import ToolCall, ToolError, ToolOutcome, ToolResult
from schemas.events import Escalated, ModelResponded
from schemas.tasks import content_hash


class Episode:
    """Mutable state of one running episode. Built and driven by `EpisodeRunner`."""

    def __init__(
        self,
        *,
        policy: PolicyClient,
        toolbox: Toolbox,
        builtin_escalate: ToolSpec[Any, Any] | None,
        recorder: Recorder,
        config: RunnerConfig,
        clock: Callable[[], float],
        id_factory: Callable[[], str],
        messages: list[Message],
        tools: list[dict[str, Any]],
    ) -> None:
        self.policy, self.toolbox, self.recorder, self.config = policy, toolbox, recorder, config
        self.builtin_escalate = builtin_escalate
        self.clock, self.new_id = clock, id_factory
        self.messages, self.tools = messages, tools
        self.offered = [tool["function"]["name"] for tool in tools]
        self.started_at = clock()
        self.steps = self.tool_calls = self.invalid_total = self.invalid_streak = self.unknown = 0
        self.escalation: Escalated | None = None
        self.ended = False

    def run(self) -> EpisodeResult:
        """Drive the episode to its end; unexpected errors close the record, then propagate."""
        try:
            return self._loop()
        except Exception as exc:
            if not self.ended:
                try:
                    self._close_after_crash(f"runtime error: {type(exc).__name__}: {exc}")
                except Exception as close_exc:  # the recorder itself may be what failed
                    exc.add_note(f"closing the episode record failed too: {close_exc!r}")
            raise

    def _close_after_crash(self, reason: str) -> None:
        """Escalate (unless that was already recorded) and end `failed`, without touching the world."""
        if self.escalation is None:
            self.recorder.escalated(reason, trigger="runtime")
        self.ended = True
        duration_ms = (self.clock() - self.started_at) * 1000
        self.recorder.ended("failed", steps=self.steps, tool_calls=self.tool_calls, duration_ms=duration_ms)

    def _loop(self) -> EpisodeResult:
        while True:
            if self.steps >= self.config.max_steps:
                reason = f"step budget of {self.config.max_steps} model turns used up"
                return self._escalate(reason, "budget", status="budget_exhausted")
            if self._out_of_time():
                return self._escalate(self._time_reason(), "budget", status="budget_exhausted")
            asked_at = self.clock()
            try:
                reply = self.policy.complete(self.messages, self.tools)
            except PolicyError as exc:
                reason = f"policy error: {exc}"
                return self._escalate(reason, "runtime", status="failed", error=str(exc))
            latency_ms = (self.clock() - asked_at) * 1000
            self.steps += 1
            ending = self._turn(reply, latency_ms)
            if ending is not None:
                return ending

    def _turn(self, reply: PolicyReply, latency_ms: float) -> EpisodeResult | None:
        """Record and act on one reply; a result when the episode ends here."""
        if reply.escalation is not None:  # an explicit ask outranks any calls in the same reply
            self._responded(reply, ReplyCheck(), latency_ms)
            self.messages.append(assistant_message(replace(reply, tool_calls=())))
            ask = reply.escalation
            return self._escalate(
                ask.reason, "policy", recommendation=ask.recommendation, queue=ask.queue, final=reply.content
            )
        check = check_reply(
            reply, self.offered, require_tool_call=self.config.require_tool_call, new_call_id=self.new_id
        )
        self._responded(reply, check, latency_ms)
        if check.invalid_reason is not None:
            return self._invalid(reply, check.invalid_reason)
        self.invalid_streak = 0
        if not check.calls:
            self.messages.append(assistant_message(reply))
            return self._end("completed", final=reply.content)
        with_ids = tuple(
            replace(p, call_id=c.call_id) for p, c in zip(reply.tool_calls, check.calls, strict=True)
        )
        self.messages.append(assistant_message(replace(reply, tool_calls=with_ids)))
        return self._calls(check.calls, reply.content)

    def _calls(self, calls: Sequence[ToolCall], content: str | None) -> EpisodeResult | None:
        for index, call in enumerate(calls):
            if self._out_of_time():
                for refused in calls[index:]:
                    self._refuse(refused)
                return self._escalate(self._time_reason(), "budget", status="budget_exhausted")
            result = self._execute(call)
            self.messages.append(tool_message(result))
            if result.outcome is not ToolOutcome.OK:
                continue
            # Calls after an ending call in the same reply are deliberately not run.
            if call.name == self.config.escalate_tool:
                reason, recommendation, queue = escalation_fields(call.arguments)
                return self._escalate(
                    reason, "policy", recommendation=recommendation, queue=queue, final=content
                )
            if call.name in self.config.terminal_tools:
                return self._end("completed", final=content)
        return None

    def _invalid(self, reply: PolicyReply, reason: str) -> EpisodeResult | None:
        self.invalid_total += 1
        self.invalid_streak += 1
        self.messages += [invalid_assistant_message(reply), correction_message(reason, self.offered)]
        if self.invalid_streak < self.config.max_invalid_replies:
            return None
        why = f"{self.invalid_streak} invalid replies in a row; the last: {reason}"
        return self._escalate(why, "runtime", status="escalated")

    def _execute(self, call: ToolCall) -> ToolResult:
        spec = self._spec(call.name)
        self.recorder.tool_called(call, spec.side_effect, spec.args_model)
        began = self.clock()
        builtin = spec is self.builtin_escalate
        result = run_builtin_escalate(call) if builtin else self.toolbox.call(call)
        # Latency on the runner's clock, so a rollout with an injected clock records identically.
        result = result.model_copy(update={"latency_ms": (self.clock() - began) * 1000})
        self.tool_calls += 1
        if result.outcome is ToolOutcome.OK:
            self.recorder.tool_returned(result, spec.result_model)
        else:
            if result.outcome is ToolOutcome.UNKNOWN:
                self.unknown += 1
            self.recorder.tool_failed(result)
        return result

    def _refuse(self, call: ToolCall) -> None:
        """Record a call the time budget stopped before it ran."""
        spec = self._spec(call.name)
        self.recorder.tool_called(call, spec.side_effect, spec.args_model)
        error = ToolError(kind="budget", message=f"not run: {self._time_reason()}")
        result = ToolResult(call_id=call.call_id, name=call.name, outcome=ToolOutcome.FAILED, error=error)
        self.recorder.tool_failed(result)

    def _spec(self, name: str) -> ToolSpec[Any, Any]:
        spec = self.toolbox.spec(name)
        if spec is None and self.builtin_escalate is not None and name == self.builtin_escalate.name:
            spec = self.builtin_escalate
        assert spec is not None, f"check_reply let through the unoffered tool {name!r}"
        return spec

    def _responded(self, reply: PolicyReply, check: ReplyCheck, latency_ms: float) -> None:
        invalid = check.invalid_reason is not None
        self.recorder.model_responded(
            ModelResponded(
                turn=self.steps - 1,
                content=reply.content,
                tool_calls=check.calls,
                finish_reason=reply.finish_reason,
                invalid_reason=check.invalid_reason,
                raw=reply.raw if invalid else None,
                sampling=self.policy.sampling,
                prompt_tokens=reply.usage.prompt_tokens,
                completion_tokens=reply.usage.completion_tokens,
                latency_ms=latency_ms,
            )
        )

    def _out_of_time(self) -> bool:
        return self.clock() - self.started_at >= self.config.max_seconds

    def _time_reason(self) -> str:
        return f"time budget of {self.config.max_seconds:g} s used up"

    def _escalate(
        self,
        reason: str,
        trigger: EscalationTrigger,
        *,
        status: EpisodeStatus = "escalated",
        recommendation: str | None = None,
        queue: str | None = None,
        final: str | None = None,
        error: str | None = None,
    ) -> EpisodeResult:
        self.recorder.escalated(reason, trigger=trigger, recommendation=recommendation, queue=queue)
        self.escalation = Escalated(
            reason=reason, trigger=trigger, recommendation=recommendation, queue=queue
        )
        return self._end(status, final=final, error=error)

    def _end(
        self,
        status: EpisodeStatus,
        *,
        final: str | None = None,
        error: str | None = None,
    ) -> EpisodeResult:
        duration_ms = (self.clock() - self.started_at) * 1000
        world_hash = self._world_hash()
        self.ended = True
        self.recorder.ended(
            status,
            steps=self.steps,
            tool_calls=self.tool_calls,
            duration_ms=duration_ms,
            final_message=final,
            world_hash=world_hash,
        )
        return EpisodeResult(
            episode_id=self.recorder.episode_id,
            status=status,
            steps=self.steps,
            tool_calls=self.tool_calls,
            escalation=self.escalation,
            final_message=final,
            duration_ms=duration_ms,
            invalid_replies=self.invalid_total,
            unknown_outcomes=self.unknown,
            error=error,
            messages=tuple(self.messages),
        )

    def _world_hash(self) -> str | None:
        snapshot = world_snapshot(self.toolbox) if self.config.snapshot_world else None
        return content_hash(snapshot) if snapshot is not None else None


def world_snapshot(toolbox: Toolbox) -> dict[str, Any] | None:
    """The backend's world state when it can give one (sim, sandbox); None for live systems."""
    snapshot = getattr(toolbox.backend, "snapshot", None)
    if not callable(snapshot):
        return None
    state = snapshot()
    return state if isinstance(state, dict) else None
