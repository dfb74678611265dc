"""A parsed `PolicyReply` as it goes back into the conversation; the rest of what the engine says
to a model (system prompt, work item, tool results, corrections) is `adapters.chat`, shared with
training, whose datasets hold exactly these messages."""

from __future__ import annotations

from adapters.chat import tool_calls_message
from engine.reply import Message, PolicyReply


def assistant_message(reply: PolicyReply) -> Message:
    """A usable reply as it goes back into the conversation."""
    return tool_calls_message(reply.content, [(c.call_id, c.name, c.arguments_raw) for c in reply.tool_calls])


def invalid_assistant_message(reply: PolicyReply) -> Message:
    """An unusable reply as it goes back: as text, because echoing broken tool-call JSON to a
    server can make its chat template fail on the next request."""
    attempted = [f"{c.name}({c.arguments_raw})" for c in reply.tool_calls]
    parts = [reply.content or "", *attempted]
    return {"role": "assistant", "content": "\n".join(p for p in parts if p) or "(empty reply)"}
