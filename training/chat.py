"""One interface for every policy model: OpenAI chat messages and tools in, one assistant turn out.

A Hugging Face causal LM and the structured reference policy both implement `ChatPolicy`, and
`completion_body` turns a reply into the JSON of an OpenAI `chat.completion`, so a server in front
of either answers exactly as vLLM would and the bridge's runtime cannot tell them apart. In
process, `EngineChatPolicy` runs one as the engine's `Policy` (evaluation, rejection sampling): it
is sent the engine's own messages, the same ones a served model is sent in production.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from adapters.chat import Message, tool_calls_message
from engine import EpisodeView, PolicyReply, Usage, parse_arguments
from schemas.events import PolicyRef, SamplingParams


@dataclass(frozen=True)
class ChatToolCall:
    """A tool call as a model writes it."""

    call_id: str
    name: str
    arguments: str
    """JSON text, as in the OpenAI API."""


@dataclass(frozen=True)
class ChatReply:
    """One assistant turn: tool calls, or a final message (content only)."""

    content: str | None
    tool_calls: tuple[ChatToolCall, ...] = ()
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def message(self) -> Message:
        """The assistant message, as it goes back into the conversation."""
        return tool_calls_message(self.content, [(c.call_id, c.name, c.arguments) for c in self.tool_calls])


class ChatPolicy(Protocol):
    """Anything that answers a conversation like an OpenAI-compatible chat model with tools."""

    @property
    def name(self) -> str:
        """The model name it answers as."""
        ...

    def complete(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> ChatReply:
        """The next assistant turn."""
        ...


@dataclass(frozen=True)
class EngineChatPolicy:
    """A chat policy as the engine's `Policy`, in process."""

    chat: ChatPolicy
    sampling: SamplingParams = field(default_factory=SamplingParams)

    @property
    def ref(self) -> PolicyRef:
        return PolicyRef(model=self.chat.name, route="scripted")

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        reply = self.chat.complete(messages, tools)
        return PolicyReply(
            content=reply.content,
            tool_calls=tuple(parse_arguments(c.call_id, c.name, c.arguments) for c in reply.tool_calls),
            finish_reason="tool_calls" if reply.tool_calls else "stop",
            raw=json.dumps(reply.message(), ensure_ascii=False),
            usage=Usage(reply.prompt_tokens, reply.completion_tokens),
        )


def completion_body(reply: ChatReply, *, model: str, completion_id: str) -> dict[str, Any]:
    """The reply as an OpenAI `chat.completion` response body."""
    usage = None
    if reply.prompt_tokens is not None and reply.completion_tokens is not None:
        usage = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": reply.message(),
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": usage,
    }
