"""A parsed `PolicyReply` as it goes back into the conversation, and a model's written turn as a
`PolicyReply`; the rest of what the engine says to a model (system prompt, work item, tool results,
corrections) is `adapters.chat`, shared with training, whose datasets hold exactly these messages."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from adapters.chat import tool_calls_message
from engine.reply import Message, PolicyReply, ProposedToolCall, Usage


def assistant_message(reply: PolicyReply) -> Message:
    """A usable reply as it goes back into the conversation."""
    return tool_calls_message(reply.content, [(c.call_id, c.name, c.arguments_raw) for c in reply.tool_calls])


def invalid_assistant_message(reply: PolicyReply) -> Message:
    """An unusable reply as it goes back: as text, because echoing broken tool-call JSON to a
    server can make its chat template fail on the next request."""
    attempted = [f"{c.name}({c.arguments_raw})" for c in reply.tool_calls]
    parts = [reply.content or "", *attempted]
    return {"role": "assistant", "content": "\n".join(p for p in parts if p) or "(empty reply)"}


def with_raw(reply: PolicyReply) -> PolicyReply:
    """The reply with `raw` as its OpenAI assistant message, so every policy's replies record alike."""
    return replace(reply, raw=json.dumps(assistant_message(reply), ensure_ascii=False))


def written(
    content: str | None, calls: Sequence[ProposedToolCall] = (), *, usage: Usage | None = None
) -> PolicyReply:
    """A turn as a model wrote it: its tool calls (arguments kept as written), or its text."""
    finish = "tool_calls" if calls else "stop"
    return with_raw(PolicyReply(content, tuple(calls), finish, usage=usage or Usage()))
