"""The engine's built-in escalate tool, and the rules that go with it.

A domain may ship its own escalate tool (rcm: `escalate_to_human`, which also files the item in the
billing system's work queue); the engine then runs it through the Toolbox like any other tool.
Without one, the engine offers this built-in tool so every agent can always ask for a human.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from adapters import ToolSpec
from adapters.toolbox import validation_error
from engine.rules import DomainRules, EscalationFields
from schemas import SideEffect, ToolCall, ToolOutcome, ToolResult


class EscalateArgs(BaseModel):
    """Hand this work item to a human."""

    reason: str = Field(min_length=1, max_length=2000)
    """Why a human is needed, in one or two sentences."""
    recommendation: str | None = Field(default=None, max_length=2000)
    """What you recommend the human do, if you have a recommendation."""
    queue: str | None = Field(default=None, max_length=64)
    """Which human work queue should take it (e.g. `supervisor`), if you know."""


class EscalationReceipt(BaseModel):
    """Confirmation that the item is now with a human."""

    status: str = "escalated"
    """Always `escalated`."""


def builtin_escalate_spec(name: str) -> ToolSpec[EscalateArgs, EscalationReceipt]:
    """The engine's own escalate tool, under the configured name."""
    return ToolSpec(
        name=name,
        description=(
            "Hand this work item to a human and stop working it. Use it when the item needs "
            "approval, authority you lack, or facts that contradict each other."
        ),
        args_model=EscalateArgs,
        result_model=EscalationReceipt,
        side_effect=SideEffect.WRITE,
    )


def run_builtin_escalate(call: ToolCall) -> ToolResult:
    """Validate a built-in escalate call; the escalation itself is recorded by the session."""
    try:
        EscalateArgs.model_validate(call.arguments)
    except ValidationError as exc:
        return ToolResult(
            call_id=call.call_id, name=call.name, outcome=ToolOutcome.FAILED, error=validation_error(exc)
        )
    return ToolResult(
        call_id=call.call_id,
        name=call.name,
        outcome=ToolOutcome.OK,
        result=EscalationReceipt().model_dump(mode="json"),
    )


def builtin_rules(
    escalate_tool: str = "escalate", terminal_tools: frozenset[str] = frozenset()
) -> DomainRules:
    """Rules for a toolbox whose escalate tool is the engine's own (or takes its arguments)."""
    return DomainRules(escalate_tool, read_builtin_escalation, terminal_tools)


def read_builtin_escalation(arguments: Mapping[str, Any]) -> EscalationFields:
    """The reason, recommendation and queue of a built-in escalate call (`EscalateArgs`)."""
    args = EscalateArgs.model_validate(arguments)
    return EscalationFields(args.reason, args.recommendation, args.queue)
