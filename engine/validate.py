"""Is a policy reply usable? Turns proposed calls into `ToolCall`s, or names what is wrong.

A reply is used whole or not at all: if one of its calls is broken, none runs. Running the good
half of a reply whose author was confused is how a write happens without the read it depended on.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from pydantic import ValidationError

from engine.reply import PolicyReply
from schemas import ToolCall


@dataclass(frozen=True)
class ReplyCheck:
    """Valid calls in order (empty for a closing text message), or why the reply is unusable."""

    calls: tuple[ToolCall, ...] = ()
    invalid_reason: str | None = None


def check_reply(
    reply: PolicyReply,
    offered: Collection[str],
    *,
    require_tool_call: bool,
    new_call_id: Callable[[], str],
) -> ReplyCheck:
    """Check a reply against the tools this episode offers."""
    if not reply.tool_calls:
        return _check_text(reply, require_tool_call)
    calls: list[ToolCall] = []
    for proposed in reply.tool_calls:
        name = proposed.name or "(no name)"
        if proposed.error is not None:
            return ReplyCheck(invalid_reason=f"tool call {name!r}: {proposed.error}")
        if proposed.name not in offered:
            return ReplyCheck(invalid_reason=f"{name!r} is not one of the offered tools")
        try:
            call = ToolCall(
                call_id=proposed.call_id or new_call_id(),
                name=proposed.name,
                arguments=proposed.arguments or {},
            )
        except ValidationError as exc:
            return ReplyCheck(invalid_reason=f"tool call {name!r} is malformed: {exc.errors()[0]['msg']}")
        if any(call.call_id == earlier.call_id for earlier in calls):
            return ReplyCheck(invalid_reason=f"two tool calls share the id {call.call_id!r}")
        calls.append(call)
    return ReplyCheck(calls=tuple(calls))


def _check_text(reply: PolicyReply, require_tool_call: bool) -> ReplyCheck:
    if not (reply.content or "").strip():
        return ReplyCheck(invalid_reason="the reply was empty (no text and no tool call)")
    if reply.finish_reason == "length":
        return ReplyCheck(invalid_reason="the reply was cut off at the token limit")
    if require_tool_call:
        return ReplyCheck(invalid_reason="a tool call was required, but the reply was plain text")
    return ReplyCheck()
