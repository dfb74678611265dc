"""The OpenAI chat-completions wire format, as pure functions: request body out, `PolicyReply` in."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine import Message, PolicyError, PolicyReply, ProposedToolCall, Usage, parse_arguments
from schemas.events import SamplingParams


def request_body(
    model: str,
    messages: Sequence[Message],
    tools: Sequence[Mapping[str, Any]],
    sampling: SamplingParams,
    *,
    tool_choice: str | None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON body of `POST /chat/completions`; unset optional settings are left out."""
    body: dict[str, Any] = {
        "model": model,
        "messages": list(messages),
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
    }
    if tools:
        body["tools"] = list(tools)
        if tool_choice is not None:
            body["tool_choice"] = tool_choice
    if sampling.max_tokens is not None:
        body["max_tokens"] = sampling.max_tokens
    if sampling.seed is not None:
        body["seed"] = sampling.seed
    body.update(extra or {})
    return body


def parse_completion(body: Any, *, latency_ms: float, attempts: int) -> PolicyReply:
    """The first choice of a chat completion; a body that is not one raises `PolicyError(protocol)`."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
        calls = tuple(_tool_call(item) for item in message.get("tool_calls") or ())
    except (KeyError, IndexError, TypeError) as exc:
        snippet = json.dumps(body)[:300] if _jsonable(body) else repr(body)[:300]
        raise PolicyError(
            "protocol", f"not a chat completion ({type(exc).__name__}: {exc}): {snippet}", attempts=attempts
        ) from exc
    content = message.get("content")
    usage = body.get("usage") or {}
    return PolicyReply(
        content=content if isinstance(content, str) else None,
        tool_calls=calls,
        finish_reason=choice.get("finish_reason"),
        raw=json.dumps(message, ensure_ascii=False),
        usage=Usage(_int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))),
        latency_ms=latency_ms,
        attempts=attempts,
    )


def error_message(body: Any, fallback: str) -> str:
    """The `error.message` of an OpenAI-style error body, else a snippet of the text."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(body.get("detail"), str):  # FastAPI-style servers
            return str(body["detail"])
    return fallback[:300]


def _tool_call(item: Any) -> ProposedToolCall:
    function = item["function"]
    # An id-less call keeps "" here; the runner gives it one from its id factory, so ids stay
    # unique within the episode and reproducible in a rollout.
    return parse_arguments(
        str(item.get("id") or ""), str(function.get("name") or ""), function.get("arguments", "")
    )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
