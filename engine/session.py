"""One episode in progress, stepped one reply or one tool call at a time.

Order of facts, always: `episode.started`, then per turn `model.responded` followed by
`tool.called` + (`tool.returned` | `tool.failed`) for each call it asked for, then at most one
`escalated`, then `episode.ended`. `engine.loop.run_episode` steps a session with a policy; the
gateway steps one with an external agent's calls (`step`, `escalate`, `end`). Either way the same
budgets apply and the same facts are recorded.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from adapters import Toolbox, ToolSpec, tools_hash
from adapters.chat import correction_message, prompt_hash, system_prompt, tool_message, work_item_message
from engine.config import Clock, EpisodeConfig, EpisodeResult, IdFactory
from engine.escalate import builtin_escalate_spec, run_builtin_escalate
from engine.policy import EpisodeView, Turn
from engine.prompt import assistant_message, invalid_assistant_message
from engine.recorder import Recorder
from engine.reply import Message, PolicyReply
from engine.rules import EpisodeRules
from engine.validate import ReplyCheck, check_reply
from schemas import Event, ToolCall, ToolError, ToolOutcome, ToolResult, WorkItem, new_id
from schemas.events import (
    EpisodeStatus,
    Escalated,
    EscalationTrigger,
    ModelResponded,
    PolicyRef,
    SamplingParams,
)
from schemas.tasks import content_hash


class EpisodeEnded(RuntimeError):
    """The session was asked to act after its episode ended."""


def world_snapshot(toolbox: Toolbox) -> dict[str, Any] | None:
    """The backend's world state when it can give one (sim, sandbox); None for live systems."""
    snapshot = getattr(toolbox.backend, "snapshot", None)
    state = snapshot() if callable(snapshot) else None
    return state if isinstance(state, dict) else None


class EpisodeSession:
    """Mutable state of one episode. Not thread-safe: one caller steps it at a time."""

    def __init__(
        self,
        work_item: WorkItem,
        *,
        toolbox: Toolbox,
        recorder: Recorder,
        rules: EpisodeRules | None,
        config: EpisodeConfig | None = None,
        clock: Clock = time.monotonic,
        id_factory: IdFactory = new_id,
        task_id: str | None = None,
    ) -> None:
        """`rules` None: an externally driven episode that applies no domain rules (the gateway:
        its agent says itself when it escalates and ends)."""
        self.work_item, self.toolbox, self.recorder, self.rules = work_item, toolbox, recorder, rules
        self.config, self.clock, self.new_id, self.task_id = (
            config or EpisodeConfig(),
            clock,
            id_factory,
            task_id,
        )
        name = rules.escalate_tool if rules is not None else None
        builtin = name is not None and self.config.builtin_escalate and toolbox.spec(name) is None
        self.builtin_escalate = builtin_escalate_spec(name) if builtin and name else None
        self.specs: list[ToolSpec[Any, Any]] = [*toolbox.specs(), *filter(None, [self.builtin_escalate])]
        self.tools = [spec.openai_tool() for spec in self.specs]
        self.prompt = system_prompt(self.config.system_prompt, work_item, name or "escalate")
        self.messages: list[Message] = [
            {"role": "system", "content": self.prompt},
            work_item_message(work_item),
        ]
        self.turns: list[Turn] = []
        self.steps = self.tool_calls = self.invalid_total = self.invalid_streak = self.unknown = 0
        self.sampling = SamplingParams()
        self.escalation: Escalated | None = None
        self.result: EpisodeResult | None = None
        self.ended_event: Event | None = None
        self.started_at = clock()

    def start(
        self,
        policy: PolicyRef,
        *,
        sampling: SamplingParams | None = None,
        payload_model: type[BaseModel] | None = None,
        system_prompt_hash: str | None = None,
    ) -> None:
        """Record `episode.started`; `system_prompt_hash` overrides the engine prompt's (the gateway's
        external agent brings its own)."""
        self.sampling = sampling or SamplingParams()
        snapshot = world_snapshot(self.toolbox) if self.config.snapshot_world else None
        self.recorder.started(
            self.work_item,
            payload_model=payload_model,
            policy=policy,
            tools=[spec.name for spec in self.specs],
            tools_hash=tools_hash(self.specs),
            system_prompt_hash=system_prompt_hash or prompt_hash(self.prompt),
            max_steps=self.config.max_steps,
            max_seconds=self.config.max_seconds,
            world_snapshot=snapshot,
            task_id=self.task_id,
        )

    @property
    def ended(self) -> bool:
        return self.result is not None

    @property
    def view(self) -> EpisodeView:
        return EpisodeView(self.work_item, tuple(self.turns), self.task_id)

    def spent(self) -> str | None:
        """Why the next model turn may not be taken (a turn or time budget is used up), if so."""
        if self.steps >= self.config.max_steps:
            return f"step budget of {self.config.max_steps} model turns used up"
        return self._time_reason() if self._out_of_time() else None

    # -- a policy's turn ------------------------------------------------------------------------
    def respond(self, reply: PolicyReply, latency_ms: float) -> None:
        """Record and act on one reply: run its calls, apply the rules, end the episode if it ends."""
        self._require_open()
        self.steps += 1
        if reply.escalation is not None:  # an explicit ask outranks any calls in the same reply
            self._responded(reply, ReplyCheck(), latency_ms)
            self.messages.append(assistant_message(replace(reply, tool_calls=())))
            ask = reply.escalation
            self.escalate(ask.reason, "policy", recommendation=ask.recommendation, queue=ask.queue)
            self.end("escalated", final=reply.content)
            return
        check = check_reply(
            reply,
            [spec.name for spec in self.specs],
            require_tool_call=self.config.require_tool_call,
            new_call_id=self.new_id,
        )
        self._responded(reply, check, latency_ms)
        if check.invalid_reason is not None:
            self._invalid(reply, check.invalid_reason)
            return
        self.invalid_streak = 0
        with_ids = tuple(
            replace(p, call_id=c.call_id) for p, c in zip(reply.tool_calls, check.calls, strict=True)
        )
        self.messages.append(assistant_message(replace(reply, tool_calls=with_ids)))
        if not check.calls:
            self.end("completed", final=reply.content)
            return
        self._calls(check.calls, reply.content)

    def _calls(self, calls: Sequence[ToolCall], content: str | None) -> None:
        for index, call in enumerate(calls):
            if self._out_of_time():
                for refused in calls[index:]:
                    self._refuse(refused, f"not run: {self._time_reason()}")
                self.escalate(self._time_reason(), "budget")
                self.end("budget_exhausted")
                return
            result = self.call(call)
            rest = calls[index + 1 :]  # calls after an ending call in the same reply are not run
            if self._apply_rules(call, result, content):
                return
            budget = self.config.max_tool_calls
            if budget is not None and self.tool_calls >= budget:
                for refused in rest:
                    self._refuse(refused, f"not run: tool-call budget of {budget} used up")
                self.escalate(f"tool-call budget of {budget} calls used up", "budget")
                self.end("budget_exhausted", final=content)
                return

    def _apply_rules(self, call: ToolCall, result: ToolResult, content: str | None) -> bool:
        """End the episode if this ok call is a terminal tool, or the escalate tool handing the whole
        work item to a human."""
        if self.rules is None or result.outcome is not ToolOutcome.OK:
            return False
        if call.name == self.rules.escalate_tool:
            if not self.rules.escalation_ends(self.work_item, call.arguments):
                return False  # one part handed to a human (the system holds it); the rest goes on
            fields = self.rules.escalation(call.arguments)
            self.escalate(fields.reason, "policy", recommendation=fields.recommendation, queue=fields.queue)
            self.end("escalated", final=content)
            return True
        if call.name in self.rules.terminal_tools:
            self.end("completed", final=content)
            return True
        return False

    def _invalid(self, reply: PolicyReply, reason: str) -> None:
        self.invalid_total += 1
        self.invalid_streak += 1
        self.messages += [invalid_assistant_message(reply), correction_message(reason, self.tools_offered)]
        if self.invalid_streak >= self.config.max_invalid_replies:
            self.escalate(f"{self.invalid_streak} invalid replies in a row; the last: {reason}", "runtime")
            self.end("escalated")

    @property
    def tools_offered(self) -> list[str]:
        return [spec.name for spec in self.specs]

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
                sampling=self.sampling,
                prompt_tokens=reply.usage.prompt_tokens,
                completion_tokens=reply.usage.completion_tokens,
                latency_ms=latency_ms,
            )
        )

    # -- one tool call (a policy's, or the gateway's) -------------------------------------------
    def step(self, call: ToolCall) -> ToolResult:
        """An external agent's turn: one tool call, recorded and run (or refused by the budget)."""
        self._require_open()
        budget = self.config.max_tool_calls
        if budget is not None and self.tool_calls >= budget:
            return self._refuse(call, f"step budget of {budget} calls is spent")
        self.steps += 1
        return self.call(call)

    def call(self, call: ToolCall) -> ToolResult:
        """Record a call, run it through the toolbox (or the built-in escalate tool), record its result."""
        spec = self._spec(call.name)
        self.recorder.tool_called(call, spec.side_effect if spec else None, spec.args_model if spec else None)
        began = self.clock()
        builtin = spec is not None and spec is self.builtin_escalate
        result = run_builtin_escalate(call) if builtin else self.toolbox.call(call)
        # Latency on the engine's clock, so a run with an injected clock records identically.
        result = result.model_copy(update={"latency_ms": (self.clock() - began) * 1000})
        self.tool_calls += 1
        self.turns.append(Turn(call=call, result=result))
        self.messages.append(tool_message(result))
        if result.outcome is ToolOutcome.OK:
            self.recorder.tool_returned(result, spec.result_model if spec else None)
        else:
            if result.outcome is ToolOutcome.UNKNOWN:
                self.unknown += 1
            self.recorder.tool_failed(result)
        return result

    def _refuse(self, call: ToolCall, message: str) -> ToolResult:
        """Record a call a budget stopped before it ran."""
        spec = self._spec(call.name)
        self.recorder.tool_called(call, spec.side_effect if spec else None, spec.args_model if spec else None)
        error = ToolError(kind="budget", message=message)
        result = ToolResult(call_id=call.call_id, name=call.name, outcome=ToolOutcome.FAILED, error=error)
        self.recorder.tool_failed(result)
        return result

    def _spec(self, name: str) -> ToolSpec[Any, Any] | None:
        builtin = self.builtin_escalate
        return builtin if builtin is not None and name == builtin.name else self.toolbox.spec(name)

    # -- endings --------------------------------------------------------------------------------
    def escalate(
        self,
        reason: str,
        trigger: EscalationTrigger,
        *,
        recommendation: str | None = None,
        queue: str | None = None,
    ) -> Event:
        """Record a hand-off to a human (the episode still needs its `end`)."""
        self._require_open()
        event = self.recorder.escalated(reason, trigger=trigger, recommendation=recommendation, queue=queue)
        self.escalation = Escalated(
            reason=reason, trigger=trigger, recommendation=recommendation, queue=queue
        )
        return event

    def end(
        self, status: EpisodeStatus, *, final: str | None = None, error: str | None = None, world: bool = True
    ) -> EpisodeResult:
        """Record `episode.ended` and return the summary; `world=False` leaves the world unread."""
        self._require_open()
        duration_ms = (self.clock() - self.started_at) * 1000
        snapshot = world_snapshot(self.toolbox) if world and self.config.snapshot_world else None
        world_hash = content_hash(snapshot) if snapshot is not None else None
        self.result = EpisodeResult(
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
            turns=tuple(self.turns),
            world_hash=world_hash,
        )
        self.ended_event = self.recorder.ended(
            status,
            steps=self.steps,
            tool_calls=self.tool_calls,
            duration_ms=duration_ms,
            final_message=final,
            world_hash=world_hash,
        )
        return self.result

    def crash(self, exc: BaseException) -> None:
        """Close the record after an unexpected error (escalate unless already recorded, end
        `failed` without touching the world); the caller re-raises `exc`."""
        if self.ended:
            return
        reason = f"runtime error: {type(exc).__name__}: {exc}"
        try:
            if self.escalation is None:
                self.escalate(reason, "runtime")
            self.end("failed", error=reason, world=False)
        except Exception as close_exc:  # the recorder itself may be what failed
            exc.add_note(f"closing the episode record failed too: {close_exc!r}")

    def _require_open(self) -> None:
        if self.result is not None:
            raise EpisodeEnded(f"episode {self.recorder.episode_id} has ended ({self.result.status})")

    def _out_of_time(self) -> bool:
        return self.clock() - self.started_at >= self.config.max_seconds

    def _time_reason(self) -> str:
        return f"time budget of {self.config.max_seconds:g} s used up"
