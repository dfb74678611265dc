"""A `ChatPolicy` that asks a served model over the OpenAI API (the official client), so the
environments can score episodes that `loopline serve-policy` served."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import openai

from adapters.chat import Message
from training.chat import ChatReply, ChatToolCall


class ServedPolicy:
    """One model name on an OpenAI-compatible server."""

    def __init__(self, base_url: str, model: str, api_key: str) -> None:
        """`api_key`: the server's serving key."""
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=2)
        self._model = model

    @property
    def name(self) -> str:
        return self._model

    def complete(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> ChatReply:
        done = self._client.chat.completions.create(
            model=self._model,
            messages=list(messages),  # type: ignore[arg-type]
            tools=[dict(t) for t in tools],  # type: ignore[misc]
        )
        message = done.choices[0].message
        calls = tuple(
            ChatToolCall(c.id, c.function.name, c.function.arguments)
            for c in message.tool_calls or ()
            if c.type == "function"
        )
        return ChatReply(content=message.content, tool_calls=calls)
