"""`ScriptedPolicy`: a policy without a model, behind the same port, for tests, demos and the sandbox.

A script is either a list of replies (served in order) or a function of the conversation so far,
which can react to tool results the way a rule-based agent would. Replies are built with `act`,
`call`, `say` and `ask_human`; everything is deterministic, so scripted rollouts replay exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.policy import EpisodeView
from engine.prompt import with_raw
from engine.reply import (
    EscalationRequest,
    Message,
    PolicyError,
    PolicyReply,
    ProposedToolCall,
    parse_arguments,
)
from schemas.events import PolicyRef, SamplingParams

Script = Callable[[Sequence[Message]], PolicyReply]
"""The next reply as a function of the conversation (system, user, assistant and tool messages)."""


def call(
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    call_id: str = "",
    arguments_raw: str | None = None,
) -> ProposedToolCall:
    """A tool call; `arguments_raw` sends text verbatim instead (to script a malformed call)."""
    if arguments_raw is not None:
        return parse_arguments(call_id, name, arguments_raw)
    return parse_arguments(call_id, name, json.dumps(dict(arguments or {}), separators=(",", ":")))


def act(*calls: ProposedToolCall, content: str | None = None) -> PolicyReply:
    """A turn that calls tools (in order), optionally with text."""
    return PolicyReply(content=content, tool_calls=calls, finish_reason="tool_calls")


def say(text: str) -> PolicyReply:
    """A turn with text only: the closing message, unless the episode requires a tool call."""
    return PolicyReply(content=text, finish_reason="stop")


def ask_human(reason: str, *, recommendation: str | None = None, queue: str | None = None) -> PolicyReply:
    """A turn that hands the episode to a human without a tool call."""
    return PolicyReply(
        content=None,
        finish_reason="stop",
        escalation=EscalationRequest(reason=reason, recommendation=recommendation, queue=queue),
    )


class ScriptedPolicy:
    """Answers from a script; id-less calls get `scripted-<n>` ids, counted per policy instance."""

    def __init__(
        self,
        script: Script | Sequence[PolicyReply],
        *,
        ref: PolicyRef | None = None,
        sampling: SamplingParams | None = None,
    ) -> None:
        self._script: Script = script if callable(script) else _from_list(script)
        self._ref = ref or PolicyRef(model="scripted", route="scripted")
        self._sampling = sampling or SamplingParams()
        self._issued = 0

    @property
    def ref(self) -> PolicyRef:
        return self._ref

    @property
    def sampling(self) -> SamplingParams:
        return self._sampling

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        view: EpisodeView | None = None,
    ) -> PolicyReply:
        reply = self._script(messages)
        calls = tuple(self._with_id(c) for c in reply.tool_calls)
        return with_raw(replace(reply, tool_calls=calls))

    def _with_id(self, proposed: ProposedToolCall) -> ProposedToolCall:
        self._issued += 1
        return proposed if proposed.call_id else replace(proposed, call_id=f"scripted-{self._issued}")


def _from_list(replies: Sequence[PolicyReply]) -> Script:
    pending = list(replies)

    def next_reply(messages: Sequence[Message]) -> PolicyReply:
        if not pending:
            raise PolicyError("protocol", "script exhausted: the episode asked for more turns than scripted")
        return pending.pop(0)

    return next_reply
