"""Chat messages into a causal LM's prompt, and its generated text back into a reply.

The model's own chat template renders the messages and tools; `template_messages` only adapts the
OpenAI wire form to what templates expect (tool-call arguments as objects, no null content). Replies
are parsed in the two tool-call forms open models write: Hermes/Qwen `<tool_call>{...}</tool_call>`
blocks, or a bare JSON object with `name` and `arguments` (or `parameters`, Llama 3.1).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from typing import Any

from adapters.chat import Message
from training.chat import ChatReply, ChatToolCall

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['role'] == 'system' and tools %}{{ message['content'] }}\n<tools>"
    "{% for tool in tools %}{{ tool['function'] | tojson }}{% endfor %}</tools>"
    "{% elif message.get('tool_calls') %}{% for call in message['tool_calls'] %}<tool_call>"
    '{"name": {{ call["function"]["name"] | tojson }}, "arguments": {{ call["function"]["arguments"] | tojson }}}'
    "</tool_call>{% endfor %}"
    "{% else %}{{ message['content'] }}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""A Hermes-style template with tools, for models built here (tests, the benchmark); a production
model brings its own."""
SPECIAL_TOKENS = ("<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<pad>", "<unk>")
END = "<|im_end|>"

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def template_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages as chat templates take them: arguments as objects, content never null."""
    out = []
    for message in messages:
        item = dict(message)
        if item.get("content") is None:
            item["content"] = ""
        if item.get("tool_calls"):
            calls = []
            for call in item["tool_calls"]:
                function = dict(call["function"])
                with contextlib.suppress(TypeError, ValueError):
                    function["arguments"] = json.loads(function["arguments"] or "{}")
                calls.append({**call, "function": function})
            item["tool_calls"] = calls
        out.append(item)
    return out


def parse_reply(text: str, *, call_index: int) -> ChatReply:
    """A generated assistant turn as a reply: its tool calls (ids `call-<n>`), or its text."""
    body = text.split(END, 1)[0].strip()
    found = _BLOCK.findall(body)
    candidates = found or ([body] if body.startswith("{") else [])
    calls = []
    for offset, raw in enumerate(candidates):
        try:
            value = json.loads(raw)
        except ValueError:
            return ChatReply(content=None, tool_calls=(ChatToolCall(f"call-{call_index}", "", raw),))
        if not isinstance(value, dict) or "name" not in value:
            continue
        arguments = value.get("arguments", value.get("parameters", {}))
        text_args = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
        calls.append(ChatToolCall(f"call-{call_index + offset}", str(value["name"]), text_args))
    if calls:
        return ChatReply(content=None, tool_calls=tuple(calls))
    return ChatReply(content=body)
