"""`ToolEnv`: the one environment implementation, generic over domains.

A task's initial world is loaded into the domain's simulated backend; the agent acts only through
the task's tools (validated by the same `Toolbox` production uses); the episode ends on a terminal
tool, on `Finish`, or when the step budget is spent.
"""

from __future__ import annotations

from typing import Any

from adapters.backend import SnapshottingBackend
from adapters.toolbox import Toolbox
from envs.contract import Action, EndReason, EnvError, Finish, Observation, Trajectory, Turn
from envs.domain import Domain
from schemas.tasks import Task
from schemas.tools import ToolCall, ToolOutcome, ToolResult

DEFAULT_MAX_STEPS = 30
"""Tool calls an episode may make; generous for a specialist (reads first, then one or two writes)."""


class ToolEnv:
    """Deterministic for a seed; `world` is inspectable at any time; agents cannot reset it."""

    def __init__(self, domain: Domain, *, max_steps: int = DEFAULT_MAX_STEPS) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.domain = domain
        self.max_steps = max_steps
        self._task: Task | None = None
        self._backend: SnapshottingBackend | None = None
        self._toolbox: Toolbox | None = None
        self._seed = 0
        self._turns: list[Turn] = []
        self._end: EndReason | None = None
        self._final_message: str | None = None

    # -- the contract -------------------------------------------------------------------------
    def reset(self, task: Task, *, seed: int = 0) -> Observation:
        """Load `task.initial_world` into a fresh backend and offer the task's tools."""
        if task.domain != self.domain.name:
            raise EnvError(f"task {task.task_id} is for domain {task.domain!r}, not {self.domain.name!r}")
        specs = {spec.name: spec for spec in self.domain.tool_specs()}
        missing = [name for name in task.tools if name not in specs]
        if missing:
            raise EnvError(f"task {task.task_id} names tools the domain lacks: {', '.join(missing)}")
        self._task, self._seed = task, seed
        self._backend = self.domain.make_backend(task.initial_world, seed=seed)
        self._toolbox = Toolbox([specs[name] for name in task.tools], self._backend)
        self._turns, self._end, self._final_message = [], None, None
        return Observation(
            kind="reset",
            work_item=task.work_item,
            tools=tuple(self._toolbox.openai_tools()),
            step=0,
            steps_left=self.max_steps,
        )

    def step(self, action: Action) -> tuple[Observation, bool]:
        """Run one call, or finish; a failed call is an observation, never an exception."""
        task, toolbox = self._require_running()
        if isinstance(action, Finish):
            self._end, self._final_message = "agent_finished", action.message
            return self._observation(task, None), True
        # Simulated calls take no business time; the wall-clock latency the Toolbox measures would
        # make two identical runs differ, so the environment reports 0.
        result = toolbox.call(action).model_copy(update={"latency_ms": 0.0})
        self._turns.append(Turn(call=action, result=result))
        # Only a successful terminal call ends the episode: a malformed escalation is the agent's
        # to fix, not a silent hand-off; handing one claim of a queue to a human ends nothing.
        if result.outcome is ToolOutcome.OK and self.domain.ends_episode(task.work_item, action):
            self._end = "terminal_tool"
        elif len(self._turns) >= self.max_steps:
            self._end = "budget_exhausted"
        obs = self._observation(task, result)
        return obs, obs.done

    @property
    def world(self) -> dict[str, Any]:
        """The current world state (a copy: changing it changes nothing)."""
        if self._backend is None:
            raise EnvError("no world before reset")
        return self._backend.snapshot()

    def trajectory(self) -> Trajectory:
        """The episode so far; its `final_world` is the world now."""
        if self._task is None:
            raise EnvError("no trajectory before reset")
        return Trajectory(
            task_id=self._task.task_id,
            seed=self._seed,
            turns=tuple(self._turns),
            final_world=self.world,
            end_reason=self._end,
            final_message=self._final_message,
        )

    # -- helpers ------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether the episode has ended."""
        return self._end is not None

    @property
    def turns(self) -> tuple[Turn, ...]:
        """The turns so far (cheaper than `trajectory()`, which snapshots the world)."""
        return tuple(self._turns)

    @property
    def end_reason(self) -> EndReason | None:
        """Why the episode ended, once it has."""
        return self._end

    @property
    def toolbox(self) -> Toolbox:
        """The toolbox of the running episode (specs, OpenAI/MCP renderings)."""
        return self._require_running(allow_done=True)[1]

    def _require_running(self, *, allow_done: bool = False) -> tuple[Task, Toolbox]:
        if self._task is None or self._toolbox is None:
            raise EnvError("call reset(task) before step()")
        if self._end is not None and not allow_done:
            raise EnvError(f"episode of task {self._task.task_id} is over ({self._end}); reset first")
        return self._task, self._toolbox

    def _observation(self, task: Task, result: ToolResult | None) -> Observation:
        return Observation(
            kind="finished" if result is None else "tool_result",
            result=result,
            step=len(self._turns),
            steps_left=max(0, self.max_steps - len(self._turns)),
            done=self._end is not None,
            end_reason=self._end,
        )


def replay(domain: Domain, task: Task, calls: tuple[ToolCall, ...], *, seed: int = 0) -> Trajectory:
    """Replay `calls` into a fresh environment (as tau2-bench grades): the trajectory they produce.

    Calls after the episode ended (a terminal tool, the budget) are not run, exactly as a live
    agent could not have made them.
    """
    env = ToolEnv(domain, max_steps=max(DEFAULT_MAX_STEPS, len(calls)))
    env.reset(task, seed=seed)
    for call in calls:
        if env.done:
            break
        env.step(call)
    return env.trajectory()
