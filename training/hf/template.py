"""Chat messages into a causal LM's prompt, and its generated text back into a reply.

The model's own chat template renders the messages and tools; `template_messages` only adapts the
OpenAI wire form to what templates expect (tool-call arguments as objects, no null content). Replies
are parsed in the two tool-call forms open models write: Hermes/Qwen `<tool_call>{...}</tool_call>`
blocks, or a bare JSON object with `name` and `arguments` (or `parameters`, Llama 3.1).
"""

from __future__ import annotations

import json
import re

from engine import PolicyReply, parse_arguments, written
from training.data.rows import template_messages

__all__ = ["CHAT_TEMPLATE", "END", "SPECIAL_TOKENS", "parse_reply", "template_messages"]

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['role'] == 'assistant' %}{% generation %}"
    "{% for call in message.get('tool_calls') or [] %}"
    "{% if call['function']['arguments'] is string %}"
    "{{ raise_exception('tool-call arguments must be an object, not JSON text (render the row with "
    "template_messages, or export it with --format trl)') }}{% endif %}<tool_call>"
    '{"name": {{ call["function"]["name"] | tojson }}, "arguments": {{ call["function"]["arguments"] | tojson }}}'
    "</tool_call>{% endfor %}"
    "{% if not message.get('tool_calls') %}{{ message['content'] }}{% endif %}<|im_end|>{% endgeneration %}\n"
    "{% elif message['role'] == 'system' and tools %}{{ message['content'] }}\n<tools>"
    "{% for tool in tools %}{{ tool['function'] | tojson }}{% endfor %}</tools><|im_end|>\n"
    "{% else %}{{ message['content'] }}<|im_end|>\n{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""A Hermes-style template with tools, for models built here (tests, the benchmark); a production
model brings its own. The assistant's turn, its end-of-turn token included, sits between
`{% generation %}` markers, so `return_assistant_tokens_mask` (TRL's `assistant_only_loss`) marks
exactly what the model writes; tool-call arguments must be objects (JSON text would be encoded a
second time, and the model would learn to write a quoted string), so a string is an error."""
SPECIAL_TOKENS = ("<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<pad>", "<unk>")
END = "<|im_end|>"

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def parse_reply(text: str, *, call_index: int) -> PolicyReply:
    """A generated assistant turn as a reply: its tool calls (ids `call-<n>`), or its text."""
    body = text.split(END, 1)[0].strip()
    found = _BLOCK.findall(body)
    candidates = found or ([body] if body.startswith("{") else [])
    calls = []
    for offset, raw in enumerate(candidates):
        try:
            value = json.loads(raw)
        except ValueError:
            return written(None, (parse_arguments(f"call-{call_index}", "", raw),))
        if not isinstance(value, dict) or "name" not in value:
            continue
        arguments = value.get("arguments", value.get("parameters", {}))
        text_args = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
        calls.append(parse_arguments(f"call-{call_index + offset}", str(value["name"]), text_args))
    if calls:
        return written(None, calls)
    return written(body)
