"""A `Policy` that asks a served model over the OpenAI API (the official client), so the
environments can score episodes that `loopline serve-policy` served."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import openai

from adapters.chat import Message
from engine import EpisodeView, PolicyReply, parse_arguments, written
from schemas.events import PolicyRef, SamplingParams


class ServedPolicy:
    """One model name on an OpenAI-compatible server."""

    def __init__(self, base_url: str, model: str, api_key: str) -> None:
        """`api_key`: the server's serving key."""
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=2)
        self._model = model

    @property
    def ref(self) -> PolicyRef:
        return PolicyRef(model=self._model, route="scripted")

    @property
    def sampling(self) -> SamplingParams:
        return SamplingParams()

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        done = self._client.chat.completions.create(
            model=self._model,
            messages=list(messages),  # type: ignore[arg-type]
            tools=[dict(t) for t in tools],  # type: ignore[misc]
        )
        message = done.choices[0].message
        calls = tuple(
            parse_arguments(c.id, c.function.name, c.function.arguments)
            for c in message.tool_calls or ()
            if c.type == "function"
        )
        return written(message.content, calls)
