"""Tool calls and their tri-state results: the one format training and production share."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from schemas.base import PRINTABLE, Contract


class SideEffect(StrEnum):
    """What calling a tool does to the world."""

    READ = "read"
    WRITE = "write"
    IRREVERSIBLE = "irreversible"


class ToolOutcome(StrEnum):
    """Tri-state: `unknown` (e.g. a write that timed out) is never rounded up to ok or failed."""

    OK = "ok"
    FAILED = "failed"
    UNKNOWN = "unknown"


ToolErrorKind = Literal[
    "validation",  # the arguments did not match the tool's argument model
    "unknown_tool",  # no tool of that name is offered
    "domain",  # the system refused the request on business grounds (e.g. appeal window closed)
    "http",  # the live system answered with an HTTP error status
    "timeout",  # no answer in time; for writes the outcome is unknown
    "transport",  # connection refused, reset, DNS
    "backend",  # anything else the backend raised
    "budget",  # the episode's step or time budget refused the call
]


class ToolCall(Contract):
    """One call of a tool by the agent, in OpenAI tool-call shape."""

    call_id: str = Field(min_length=1, max_length=128)
    """Id the model (or runtime) gave this call; results refer to it."""
    name: str = Field(min_length=1, max_length=128, pattern=PRINTABLE)
    """Tool name, as in the tool's spec."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Arguments as JSON, before validation against the tool's argument model."""


class ToolError(Contract):
    """Why a tool call did not return a result."""

    kind: ToolErrorKind
    """Where the failure happened (validation, http, timeout, ...)."""
    message: str
    """Human- and model-readable explanation."""
    status_code: int | None = None
    """HTTP status from the live system, when there was one."""
    retryable: bool = False
    """Whether retrying the same call is safe and may succeed."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Structured detail, e.g. the validation errors per field."""


class ToolResult(Contract):
    """What came back from one tool call."""

    call_id: str
    """The call this result answers."""
    name: str = Field(min_length=1, max_length=128, pattern=PRINTABLE)
    """Tool name."""
    outcome: ToolOutcome
    """ok, failed, or unknown (a write whose effect cannot be confirmed)."""
    result: dict[str, Any] | None = None
    """The tool's result model as JSON, when outcome is ok."""
    error: ToolError | None = None
    """The error, when outcome is failed or unknown."""
    latency_ms: float = 0.0
    """Wall time of the call as seen by the caller, in milliseconds."""
