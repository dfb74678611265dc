"""Scripted policies for rollouts, behind the engine's one `Policy` port.

`PlanPolicy` (engine) turns a plan `(work_item, turns) -> Action` into a policy; here are the
replayed calls of gold solutions and recorded episodes, and the policy that does nothing. A policy
may keep no state between turns: everything it may use is in its arguments (which is also what
makes rollouts reproducible and lets the runner ship a policy to a worker process).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import EpisodeView, Finish, Message, Plan, PlanPolicy, Policy, PolicyReply, Turn, reply_to
from schemas.events import PolicyRef, SamplingParams
from schemas.tasks import WorkItem
from schemas.tools import ToolCall

__all__ = ["NOOP", "CallsPolicy", "Plan", "PlanPolicy", "Policy", "do_nothing"]


@dataclass(frozen=True)
class CallsPolicy:
    """Replays fixed calls per task id (gold solutions, recorded episodes), then stops."""

    name: str
    calls: Mapping[str, Sequence[ToolCall]] = field(default_factory=dict)
    sampling: SamplingParams = field(default_factory=SamplingParams)

    @property
    def ref(self) -> PolicyRef:
        return PolicyRef(model=self.name, route="scripted")

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        if view is None or view.task_id is None:
            raise TypeError("CallsPolicy replays calls by task id; the episode view names no task")
        script, index = self.calls.get(view.task_id, ()), len(view.turns)
        return reply_to(script[index] if index < len(script) else Finish(message="done"))


def do_nothing(work_item: WorkItem, turns: tuple[Turn, ...]) -> Finish:
    """The empty trajectory: stop at once."""
    return Finish(message="nothing to do")


NOOP = PlanPolicy("noop", do_nothing)
"""The policy that does nothing; every valid task scores it 0."""
