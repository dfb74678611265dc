"""A policy's reply as the JSON of an OpenAI `chat.completion`, so a server in front of any policy
answers exactly as vLLM would and the bridge's runtime cannot tell them apart. Pure."""

from __future__ import annotations

import time
from typing import Any

from engine import PolicyReply
from engine.prompt import assistant_message


def finish_reason(reply: PolicyReply) -> str:
    """`tool_calls` when the reply calls a tool, else `stop`."""
    return "tool_calls" if reply.tool_calls else "stop"


def completion_body(reply: PolicyReply, *, model: str, completion_id: str) -> dict[str, Any]:
    """The reply as an OpenAI `chat.completion` response body."""
    usage = None
    prompt, completion = reply.usage.prompt_tokens, reply.usage.completion_tokens
    if prompt is not None and completion is not None:
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": assistant_message(reply), "finish_reason": finish_reason(reply)}],
        "usage": usage,
    }
