"""The `Policy` port: who takes the turns of an episode (a served model, a script, a human).

Each turn a policy is given the conversation (OpenAI chat messages, as a model reads it), the
offered tools, and the same episode as typed data (`EpisodeView`: the work item and every call with
its result), so a scripted plan reads the turns without parsing messages back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.reply import Message, PolicyReply
from schemas.base import Contract
from schemas.events import PolicyRef, SamplingParams
from schemas.tasks import WorkItem
from schemas.tools import ToolCall, ToolResult


class Turn(Contract):
    """One tool call and its result."""

    call: ToolCall
    """The call as the agent made it."""
    result: ToolResult
    """What came back (ok, failed or unknown)."""


@dataclass(frozen=True)
class EpisodeView:
    """The episode so far, as data."""

    work_item: WorkItem
    """The work item as the agent saw it."""
    turns: tuple[Turn, ...] = ()
    """Every call made so far and its result, in order."""
    task_id: str | None = None
    """The task being worked in evaluation (for logs and replayed scripts; a policy must not
    look the answer up by it); None in production."""


class Policy(Protocol):
    """Anything that can take the next turn of an episode."""

    @property
    def ref(self) -> PolicyRef:
        """Which policy this is, for `episode.started`."""
        ...

    @property
    def sampling(self) -> SamplingParams:
        """Sampling settings of its requests, for `model.responded`."""
        ...

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        view: EpisodeView | None = None,
    ) -> PolicyReply:
        """The next turn; raises `PolicyError` when no reply can be had. `view` is the episode as
        data; a policy that plans from it needs it, a model reads `messages` alone."""
        ...
