"""One dataset row: a conversation in OpenAI chat format with the tools it was offered."""

from __future__ import annotations

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
