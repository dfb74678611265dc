"""The words the engine says to the model: system prompt, work item, tool results, corrections.

The pure rendering lives in `adapters.chat`, shared with training (its datasets hold exactly these
messages); this module adds the two renderings of a parsed `PolicyReply`.
"""

from __future__ import annotations

from adapters.chat import (
    DEFAULT_SYSTEM_PROMPT,
    correction_message,
    prompt_hash,
    read_work_item_message,
    system_prompt,
    tool_calls_message,
    tool_message,
    work_item_message,
)
from engine.reply import Message, PolicyReply

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "assistant_message",
    "correction_message",
    "invalid_assistant_message",
    "prompt_hash",
    "read_work_item_message",
    "system_prompt",
    "tool_message",
    "work_item_message",
]


def assistant_message(reply: PolicyReply) -> Message:
    """A usable reply as it goes back into the conversation."""
    return tool_calls_message(reply.content, [(c.call_id, c.name, c.arguments_raw) for c in reply.tool_calls])


def invalid_assistant_message(reply: PolicyReply) -> Message:
    """An unusable reply as it goes back: as text, because echoing broken tool-call JSON to a
    server can make its chat template fail on the next request."""
    attempted = [f"{c.name}({c.arguments_raw})" for c in reply.tool_calls]
    parts = [reply.content or "", *attempted]
    return {"role": "assistant", "content": "\n".join(p for p in parts if p) or "(empty reply)"}
