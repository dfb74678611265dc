"""What a policy answers: one parsed `PolicyReply` per turn, or a `PolicyError`.

A reply keeps the model's tool calls as proposed, with unparseable arguments held as data (raw text
plus the parse error), because a bad reply is something to record and answer, not an exception.
Deciding whether a reply is usable (known tool, required tool call) is the session's job: only it
knows which tools this episode offers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Message = dict[str, Any]
"""One chat message in OpenAI format (`role`, `content`, `tool_calls`, `tool_call_id`)."""

PolicyErrorKind = Literal["http", "transport", "timeout", "protocol"]


class PolicyError(Exception):
    """The policy could not produce a reply, after whatever retries its client makes."""

    def __init__(
        self, kind: PolicyErrorKind, message: str, *, status_code: int | None = None, attempts: int = 1
    ) -> None:
        super().__init__(message)
        self.kind: PolicyErrorKind = kind
        self.message = message
        self.status_code = status_code
        self.attempts = attempts

    def __str__(self) -> str:
        status = f" {self.status_code}" if self.status_code is not None else ""
        return f"policy {self.kind}{status} after {self.attempts} attempt(s): {self.message}"


@dataclass(frozen=True)
class Usage:
    """Token counts as the server reported them (None when it did not)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class ProposedToolCall:
    """A tool call as the model wrote it; `arguments` is None when `arguments_raw` did not parse."""

    call_id: str
    name: str
    arguments_raw: str
    arguments: dict[str, Any] | None
    error: str | None = None
    """Why the arguments are unusable (not JSON, not an object); None when they parsed."""


@dataclass(frozen=True)
class EscalationRequest:
    """A policy's explicit request for a human, made without calling a tool (scripted, rules, human)."""

    reason: str
    recommendation: str | None = None
    queue: str | None = None


@dataclass(frozen=True)
class PolicyReply:
    """One turn of the policy, parsed."""

    content: str | None
    tool_calls: tuple[ProposedToolCall, ...] = ()
    finish_reason: str | None = None
    raw: str = ""
    """The assistant message as received (JSON text), kept for the record of invalid replies."""
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0
    """Wall time of the request as the client measured it, retries included."""
    attempts: int = 1
    escalation: EscalationRequest | None = None


def parse_arguments(call_id: str, name: str, raw: Any) -> ProposedToolCall:
    """Parse a tool call's `arguments`, which OpenAI sends as a JSON string (some servers: an object)."""
    if isinstance(raw, dict):
        return ProposedToolCall(call_id, name, json.dumps(raw, separators=(",", ":")), raw)
    text = raw if isinstance(raw, str) else json.dumps(raw)
    if not text.strip():
        # Models commonly send "" for tools that take no arguments; that means {}.
        return ProposedToolCall(call_id, name, text, {})
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return ProposedToolCall(call_id, name, text, None, f"arguments are not valid JSON ({exc})")
    if not isinstance(value, dict):
        return ProposedToolCall(
            call_id, name, text, None, f"arguments must be a JSON object, not {type(value).__name__}"
        )
    return ProposedToolCall(call_id, name, text, value)
