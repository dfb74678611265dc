"""One dataset row: a conversation in OpenAI chat format with the tools it was offered, and the
same messages as chat templates take them (`template_messages`).

A row stores a call's arguments as JSON text, as OpenAI's API writes them. A chat template takes
them as an object: it renders `arguments | tojson`, so JSON text would be encoded a second time
(`"{\\"claim_id\\": ...}"`), and a model trained on that learns to write a quoted string that no
server renders. Every path that hands messages to a template (training tokenization, TRL's export,
serve-policy's prompt) goes through `template_messages`, so they render the same token ids.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class RowMeta(BaseModel):
    """Where a row came from; not part of what a model sees."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    """The task whose trajectory this is."""
    task_set: str
    """Label of the task set (`name@version`, or `name (seed N)` for a generated one)."""
    solution: str
    """`gold`, or `alternative-<i>` for the task's i-th alternative gold trajectory."""
    role: Literal["primary", "replay"]
    """`primary`: the tasks being learned; `replay`: the replay buffer that keeps old skills."""
    family: str
    """The task's family (`edge:<kind>` or `carc:<code>` tag), for per-family counts."""
    tags: tuple[str, ...] = ()
    """The task's tags."""


class ChatRow(BaseModel):
    """`messages` + `tools`, as TRL's conversational format and vLLM's chat API take them."""

    model_config = ConfigDict(extra="forbid")

    messages: list[dict[str, Any]]
    """System, user (the work item), assistant (tool calls or the closing text) and tool messages."""
    tools: list[dict[str, Any]]
    """The tools offered, in OpenAI `tools` format."""
    meta: RowMeta
    """Provenance of the row."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Reserved for later sources (production episode ids, outcome facts)."""


def arguments_object(text: Any) -> Any:
    """A call's arguments as the object a template renders: JSON text parsed (empty text is `{}`);
    an object stays as it is; text that is not a JSON object stays text (a template that refuses
    strings, as `training.hf.template.CHAT_TEMPLATE` does, then says so instead of encoding it twice)."""
    if not isinstance(text, str):
        return text
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def template_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Messages as chat templates take them: arguments as objects, `content` never null."""
    out = []
    for message in messages:
        item = dict(message)
        if item.get("content") is None:
            item["content"] = ""
        if item.get("tool_calls"):
            item["tool_calls"] = [
                {
                    **call,
                    "function": {
                        **call["function"],
                        "arguments": arguments_object(call["function"].get("arguments")),
                    },
                }
                for call in item["tool_calls"]
            ]
        out.append(item)
    return out
