"""A Gymnasium wrapper for people who want one: text in, text out, reward at the end.

Observations are `Observation` as JSON text; actions are JSON text, either a tool call
`{"name": "...", "arguments": {...}}` or `{"finish": "closing message"}`. An action that is not
valid JSON still costs a step and comes back as a failed tool result, as a malformed model reply
would in production. The reward is the verifier's score, given once, when the episode ends;
`truncated` means the step budget ran out.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
from gymnasium import spaces

from envs.contract import Action, Finish, Observation
from envs.domain import DOMAINS, DomainRegistry
from envs.env import DEFAULT_MAX_STEPS, ToolEnv
from envs.verifiers.base import VERIFIERS, VerifierRegistry
from schemas.tasks import Task
from schemas.tools import ToolCall

CHARSET = frozenset(string.printable)
"""Every character JSON text with `ensure_ascii` can contain."""
MAX_OBSERVATION_CHARS = 1 << 20
MAX_ACTION_CHARS = 1 << 16


class GymToolEnv(gymnasium.Env[str, str]):
    """`gymnasium.Env` over a list of tasks; `reset(options={"task_id": ...})` picks one."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        tasks: Sequence[Task],
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        domains: DomainRegistry = DOMAINS,
        verifiers: VerifierRegistry = VERIFIERS,
    ) -> None:
        if not tasks:
            raise ValueError("GymToolEnv needs at least one task")
        self.tasks = list(tasks)
        self.max_steps = max_steps
        self._domains, self._verifiers = domains, verifiers
        self.observation_space = spaces.Text(max_length=MAX_OBSERVATION_CHARS, charset=CHARSET)
        self.action_space = spaces.Text(max_length=MAX_ACTION_CHARS, charset=CHARSET)
        self._env: ToolEnv | None = None
        self._task: Task | None = None
        self._calls = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        task_id = (options or {}).get("task_id")
        if task_id is not None:
            matches = [t for t in self.tasks if t.task_id == task_id]
            if not matches:
                raise KeyError(f"no task {task_id!r}")
            task = matches[0]
        else:
            task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        self._task, self._calls = task, 0
        self._env = ToolEnv(self._domains.get(task.domain), max_steps=self.max_steps)
        observation = self._env.reset(task, seed=0 if seed is None else seed)
        return _text(observation), {"task_id": task.task_id}

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._env is None or self._task is None:
            raise RuntimeError("call reset() before step()")
        self._calls += 1
        observation, done = self._env.step(parse_action(action, call_id=f"call-{self._calls}"))
        info: dict[str, Any] = {"task_id": self._task.task_id}
        reward = 0.0
        if done:
            verdict = self._verifiers.get(self._task.verifier.verifier).score(
                self._task, self._env.trajectory()
            )
            reward, info["verdict"] = verdict.score, verdict
        truncated = observation.end_reason == "budget_exhausted"
        return _text(observation), reward, done and not truncated, truncated, info

    @property
    def world(self) -> dict[str, Any]:
        """The inner environment's world state."""
        if self._env is None:
            raise RuntimeError("no world before reset()")
        return self._env.world


def parse_action(text: str, *, call_id: str) -> Action:
    """A JSON action as a tool call or `Finish`; anything unusable becomes a call no tool answers."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None
    if isinstance(doc, dict) and "finish" in doc:
        return Finish(message=str(doc["finish"]))
    if isinstance(doc, dict) and isinstance(doc.get("name"), str) and doc["name"]:
        arguments = doc.get("arguments", {})
        if isinstance(arguments, dict):
            return ToolCall(
                call_id=str(doc.get("call_id") or call_id), name=doc["name"][:128], arguments=arguments
            )
    # The Toolbox answers an unknown tool with a failed result naming the offered tools.
    return ToolCall(call_id=call_id, name="invalid_action", arguments={"raw": text[:2000]})


def _text(observation: Observation) -> str:
    return json.dumps(observation.model_dump(mode="json"), ensure_ascii=True, separators=(",", ":"))
