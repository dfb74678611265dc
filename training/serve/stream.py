"""A chat completion as OpenAI's streaming answer: `chat.completion.chunk` objects sent as server-sent
events and closed by `data: [DONE]`. Pure.

The policy writes its turn whole, so the chunks split a finished reply the way OpenAI's server
splits a growing one: the role first, the text, each tool call opened with its index, id and name
and then its arguments, and a last chunk with the finish reason. With
`stream_options.include_usage` one more chunk carries the usage and no choices, as OpenAI sends it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine import PolicyReply
from training.serve.completion import finish_reason

ARGUMENT_PIECE = 64
"""Characters of tool-call arguments per chunk: clients must join the pieces to read a call."""


def _chunk(completion_id: str, model: str, created: int, choice: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [] if choice is None else [choice],
    }


def _delta(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}


def completion_chunks(
    reply: PolicyReply,
    *,
    model: str,
    completion_id: str,
    include_usage: bool = False,
    invalid_tool_calls: Sequence[Mapping[str, Any]] = (),
) -> list[dict[str, Any]]:
    """The chunks of `reply`; calls the server did not present are reported on the last chunk's
    delta under `invalid_tool_calls`, as the whole completion reports them on its message."""
    created = int(time.time())
    chunks = [_chunk(completion_id, model, created, _delta({"role": "assistant", "content": ""}))]
    if reply.content:
        chunks.append(_chunk(completion_id, model, created, _delta({"content": reply.content})))
    for index, call in enumerate(reply.tool_calls):
        opened = {"index": index, "id": call.call_id, "type": "function"}
        opened["function"] = {"name": call.name, "arguments": ""}
        chunks.append(_chunk(completion_id, model, created, _delta({"tool_calls": [opened]})))
        text = call.arguments_raw
        for start in range(0, len(text), ARGUMENT_PIECE):
            piece = {"index": index, "function": {"arguments": text[start : start + ARGUMENT_PIECE]}}
            chunks.append(_chunk(completion_id, model, created, _delta({"tool_calls": [piece]})))
    last: dict[str, Any] = {}
    if invalid_tool_calls:
        last["invalid_tool_calls"] = list(invalid_tool_calls)
    chunks.append(_chunk(completion_id, model, created, _delta(last, finish_reason(reply))))
    if include_usage:
        usage = _chunk(completion_id, model, created, None)
        prompt, completion = reply.usage.prompt_tokens or 0, reply.usage.completion_tokens or 0
        usage["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        chunks.append(usage)
    return chunks


def server_sent_events(chunks: Sequence[Mapping[str, Any]]) -> Iterator[bytes]:
    """Each chunk as one `data:` event, then `data: [DONE]`."""
    for chunk in chunks:
        yield b"data: " + json.dumps(chunk, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"
