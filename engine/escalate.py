"""The escalate tool: the runtime's built-in one, and reading an escalation out of any escalate call.

A domain may ship its own escalate tool (rcm: `escalate_to_human`, which also files the item in the
billing system's work queue); the runtime then runs it through the Toolbox like any other tool.
Without one, the runtime offers this built-in tool so every agent can always ask for a human.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from adapters import ToolSpec
from adapters.toolbox import validation_error
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
    """The runtime's own escalate tool, under the configured name."""
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
    """Validate a built-in escalate call; the escalation itself is recorded by the runner."""
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


RECOMMENDATION_KEYS = ("recommendation", "recommended_action", "recommended_decision")
"""Argument names domains use for the agent's recommendation (rcm: `recommended_action`; credit:
`recommended_decision`)."""


def escalation_fields(arguments: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(reason, recommendation, queue) from an escalate call's arguments, whatever the domain tool:
    a `reason` text, or a list of `reasons` (credit's escalation reasons) joined."""
    reasons = arguments.get("reasons")
    listed = ", ".join(r for r in reasons if isinstance(r, str)) if isinstance(reasons, list) else None
    reason = _text(arguments.get("reason")) or _text(listed) or "the agent asked for a human"
    recommendation = next((v for k in RECOMMENDATION_KEYS if (v := _text(arguments.get(k)))), None)
    return reason, recommendation, _text(arguments.get("queue"))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
