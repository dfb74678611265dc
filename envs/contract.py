"""The environment contract: what `reset` and `step` take and give (see envs/INVARIANTS.md).

The agent never sees these types: it sees a work item, tool specs and tool results. `Observation`,
`Turn` and `Trajectory` are what the harness around the agent (rollout runner, verifier, gym
wrapper) passes around.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import Field

from engine.plan import Action, Finish
from engine.policy import Turn
from schemas.base import Contract
from schemas.tasks import Task, WorkItem
from schemas.tools import ToolCall, ToolResult

__all__ = ["Action", "EndReason", "Env", "EnvError", "Finish", "Observation", "Trajectory", "Turn"]

EndReason = Literal["terminal_tool", "agent_finished", "budget_exhausted"]
"""Why an episode ended: a terminal tool (e.g. escalate) succeeded, the agent said it was done, or
the step budget ran out."""


class Observation(Contract):
    """What the agent sees after `reset` or `step`: only what a real work item and its tools give.

    It never names the task (its id names the task's family, so an agent could read the answer's
    category off it); the harness knows the task and logs it (`Trajectory.task_id`, the rollout's
    `episode.started`, the gym wrapper's `info`)."""

    kind: Literal["reset", "tool_result", "finished"]
    """`reset`: the work item and tools; `tool_result`: the answer to a call; `finished`: the end."""
    work_item: WorkItem | None = None
    """The work item, on reset."""
    tools: tuple[dict[str, Any], ...] = ()
    """Tool definitions in OpenAI `tools` format, on reset."""
    result: ToolResult | None = None
    """The tool result, after a tool call."""
    step: int = Field(ge=0)
    """Tool calls made so far."""
    steps_left: int = Field(ge=0)
    """Tool calls the budget still allows."""
    done: bool = False
    """Whether the episode is over."""
    end_reason: EndReason | None = None
    """Why it ended, once done."""


class Trajectory(Contract):
    """A finished (or abandoned) episode: every turn and the final world, ready to be scored."""

    task_id: str
    """The task worked."""
    seed: int
    """The seed the environment was reset with; gold replays use the same one."""
    turns: tuple[Turn, ...] = ()
    """Every call, in order."""
    final_world: dict[str, Any]
    """The world state when the episode ended."""
    end_reason: EndReason | None = None
    """Why it ended; None when it was abandoned mid-way."""
    final_message: str | None = None
    """The agent's closing words, if it finished by saying so."""

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The calls alone."""
        return tuple(turn.call for turn in self.turns)


class EnvError(RuntimeError):
    """The harness used the environment wrongly (step before reset, step after done)."""


class Env(Protocol):
    """An environment: deterministic for a seed, world state inspectable at any time."""

    def reset(self, task: Task, *, seed: int = 0) -> Observation:
        """Start `task` from its initial world; the observation carries the work item and tools."""
        ...

    def step(self, action: Action) -> tuple[Observation, bool]:
        """Run one tool call (or finish); returns the observation and whether the episode is over."""
        ...

    @property
    def world(self) -> dict[str, Any]:
        """The current world state, as JSON."""
        ...

    def trajectory(self) -> Trajectory:
        """The episode so far, with the current world as its final world."""
        ...
