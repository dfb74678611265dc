"""What an OpenAI chat-completions request may hold, checked before a policy runs. Pure.

The server answers a request it would misread with 400 and the reason, as OpenAI does, instead of
guessing: a parameter OpenAI's API does not define, a message with a role it does not define, or a
message key that its role does not carry. Sampling parameters are defined and accepted; decoding
stays greedy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PARAMETERS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "stream",
        "stream_options",
        "temperature",
        "top_p",
        "n",
        "stop",
        "max_tokens",
        "max_completion_tokens",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "seed",
        "user",
        "response_format",
        "metadata",
        "store",
        "service_tier",
        "reasoning_effort",
        "modalities",
        "prediction",
        "audio",
        "verbosity",
        "prompt_cache_key",
        "safety_identifier",
        "web_search_options",
        "functions",
        "function_call",
    }
)
"""The request body parameters of OpenAI's `POST /v1/chat/completions`."""

MESSAGE_KEYS: Mapping[str, frozenset[str]] = {
    "system": frozenset({"role", "content", "name"}),
    "developer": frozenset({"role", "content", "name"}),
    "user": frozenset({"role", "content", "name"}),
    "assistant": frozenset({"role", "content", "name", "tool_calls", "refusal", "audio", "function_call"}),
    "tool": frozenset({"role", "content", "tool_call_id"}),
    "function": frozenset({"role", "content", "name"}),
}
"""Each role OpenAI's API defines, and the keys a message of that role may carry."""


def message_problem(index: int, message: Any) -> str | None:
    """Why `messages[index]` is not a chat message OpenAI's API defines, or None."""
    where = f"messages[{index}]"
    if not isinstance(message, Mapping):
        return f"{where} is a JSON {type(message).__name__}, not an object"
    role = message.get("role")
    if not isinstance(role, str):
        return f"{where} has no 'role'"
    keys = MESSAGE_KEYS.get(role)
    if keys is None:
        return f"{where}.role {role!r} is not one of {', '.join(sorted(MESSAGE_KEYS))}"
    unknown = sorted(str(key) for key in message if key not in keys)
    if unknown:
        return f"{where} ({role}) carries unrecognized keys: {', '.join(unknown)}"
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        return f"{where} (tool) has no 'tool_call_id'"
    return None


def request_problem(body: Any) -> str | None:
    """Why `body` is not a chat-completions request this server can read as OpenAI would, or None."""
    if not isinstance(body, Mapping):
        return f"the request body is a JSON {type(body).__name__}, not an object"
    unknown = sorted(str(key) for key in body if key not in PARAMETERS)
    if unknown:
        return f"Unrecognized request arguments supplied: {', '.join(unknown)}"
    messages = body.get("messages")
    if isinstance(messages, list):
        for index, message in enumerate(messages):
            problem = message_problem(index, message)
            if problem is not None:
                return problem
    if body.get("n", 1) not in (1, None):
        return "n must be 1: the server decodes greedily and writes one choice"
    return None
