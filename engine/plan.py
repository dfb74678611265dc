"""A plan as a policy: `(work_item, turns) -> Action` answered as a model would answer.

Scripted specialists (a domain's reference plan, the baselines, replayed gold calls) decide from
the work item and the calls so far; `PlanPolicy` reads both from the engine's `EpisodeView` and
turns the next action into a reply: a tool call, or the closing message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.policy import EpisodeView, Turn
from engine.prompt import with_raw
from engine.reply import EscalationRequest, Message, PolicyReply
from engine.scripted import act, call, say
from schemas.base import Contract
from schemas.events import PolicyRef, SamplingParams
from schemas.tasks import WorkItem
from schemas.tools import ToolCall


class Finish(Contract):
    """The agent says it is done (a reply without a tool call)."""

    message: str = ""
    """The agent's closing words."""


Action = ToolCall | Finish
"""What a plan decides: the next call, or the end."""

Plan = Callable[[WorkItem, tuple[Turn, ...]], Action]
"""A scripted policy's whole logic: the work item and the turns so far → the next action."""

Route = Literal["champion", "canary", "scripted", "human", "external"]


def reply_to(action: Action) -> PolicyReply:
    """An action as the reply a model would give: one tool call, or a text-only closing message."""
    if isinstance(action, Finish):
        return with_raw(say(action.message))
    return with_raw(act(call(action.name, action.arguments, call_id=action.call_id)))


@dataclass(frozen=True)
class PlanPolicy:
    """A policy from a plain function; picklable when the function is a module-level one."""

    name: str
    plan: Plan
    route: Route = "scripted"
    sampling: SamplingParams = field(default_factory=SamplingParams)
    cannot_plan: tuple[type[Exception], ...] = ()
    """Errors that mean the plan cannot read this work item: the policy asks for a human instead."""

    @property
    def ref(self) -> PolicyRef:
        return PolicyRef(model=self.name, route=self.route)

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        if view is None:
            raise TypeError(f"plan policy {self.name!r} plans from the episode view; none was given")
        try:
            action = self.plan(view.work_item, view.turns)
        except self.cannot_plan as exc:
            missing = f"payload.{exc.args[0]}" if isinstance(exc, KeyError) and exc.args else str(exc)
            reason = f"the {self.name} cannot work this item: {missing} is missing or unreadable"
            return PolicyReply(content=None, finish_reason="stop", escalation=EscalationRequest(reason))
        return reply_to(action)
