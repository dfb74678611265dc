"""The policy port: anything that maps (observation, tools, history) to the next call or a stop.

Scripted policies and model clients implement the same `Policy` protocol, so the rollout runner
records both in the production event schema. A policy is called once per turn and may keep no state
between calls: everything it may use is in its arguments (which is also what makes rollouts
reproducible and lets the runner ship a policy to a worker process).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from envs.contract import Action, Finish, Observation, Turn
from schemas.tasks import WorkItem
from schemas.tools import ToolCall


@dataclass(frozen=True)
class History:
    """What happened so far in the episode."""

    task_id: str
    """The task being worked (a policy must not look it up: it is here for logs and caches)."""
    work_item: WorkItem
    """The work item as the agent saw it on reset."""
    turns: tuple[Turn, ...] = ()
    """Every call made so far and its result."""


class Policy(Protocol):
    """Decides the next action of an episode."""

    @property
    def name(self) -> str:
        """Recorded as `PolicyRef.model` on `episode.started`."""
        ...

    def act(self, observation: Observation, tools: Sequence[Mapping[str, Any]], history: History) -> Action:
        """The next tool call, or `Finish` to stop."""
        ...


Plan = Callable[[WorkItem, tuple[Turn, ...]], Action]
"""A scripted policy's whole logic: the work item and the turns so far → the next action."""


@dataclass(frozen=True)
class ScriptedPolicy:
    """A policy from a plain function; picklable when the function is a module-level one."""

    name: str
    plan: Plan

    def act(self, observation: Observation, tools: Sequence[Mapping[str, Any]], history: History) -> Action:
        return self.plan(history.work_item, history.turns)


@dataclass(frozen=True)
class CallsPolicy:
    """Replays fixed calls per task id (gold solutions, recorded episodes), then stops."""

    name: str
    calls: Mapping[str, Sequence[ToolCall]] = field(default_factory=dict)

    def act(self, observation: Observation, tools: Sequence[Mapping[str, Any]], history: History) -> Action:
        script = self.calls.get(history.task_id, ())
        index = len(history.turns)
        return script[index] if index < len(script) else Finish(message="done")


def do_nothing(work_item: WorkItem, turns: tuple[Turn, ...]) -> Action:
    """The empty trajectory: stop at once."""
    return Finish(message="nothing to do")


NOOP = ScriptedPolicy("noop", do_nothing)
"""The policy that does nothing; every valid task scores it 0."""
