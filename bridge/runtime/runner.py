"""`EpisodeRunner`: runs one agent episode for a work item against live tools, recording every step.

The runner is synchronous: the Toolbox and its backends are, and the HTTP API runs episodes on a
worker thread pool, one episode per thread. A runner holds no per-episode state, so one instance
can serve many threads as long as its policy client and toolbox can (the OpenAI client can; a
sim backend's world is per episode, so give each sim episode its own toolbox).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from adapters import Toolbox, ToolSpec, tools_hash
from bridge.runtime.canary import CanaryRouter
from bridge.runtime.config import EpisodeResult, RunnerConfig
from bridge.runtime.episode import Episode, world_snapshot
from bridge.runtime.escalation import builtin_escalate_spec
from bridge.runtime.policy import PolicyClient
from bridge.runtime.prompt import prompt_hash, system_prompt, work_item_message
from bridge.runtime.recorder import RecorderFactory
from schemas import WorkItem, new_id


class EpisodeRunner:
    """Runs episodes: prompt, policy turns, tool calls through the Toolbox, budgets, escalation."""

    def __init__(
        self,
        policy: PolicyClient,
        toolbox: Toolbox,
        recorders: RecorderFactory,
        config: RunnerConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        id_factory: Callable[[], str] = new_id,
        router: CanaryRouter | None = None,
    ) -> None:
        """`clock` (monotonic seconds) drives budgets and latencies; `id_factory` makes episode
        ids and ids for tool calls the model left without one. Inject both for reproducible rollouts.
        `router` picks the policy per work item (champion or canary); without one, `policy` serves all."""
        self.policy = policy
        self.router = router
        self.toolbox = toolbox
        self.recorders = recorders
        self.config = config or RunnerConfig()
        self.clock = clock
        self.id_factory = id_factory
        name = self.config.escalate_tool
        self._builtin_escalate = None if toolbox.spec(name) is not None else builtin_escalate_spec(name)

    def offered_specs(self) -> list[ToolSpec[Any, Any]]:
        """The tools the agent is offered: the toolbox's, plus the built-in escalate tool if needed."""
        extra = [self._builtin_escalate] if self._builtin_escalate is not None else []
        return [*self.toolbox.specs(), *extra]

    def args_models(self) -> dict[str, type[BaseModel]]:
        """Tool name → argument model of every offered tool: what a recorder needs to redact the
        calls inside `model.responded` (e.g. `EpisodeRecorder(..., args_models=runner.args_models())`)."""
        return {spec.name: spec.args_model for spec in self.offered_specs()}

    def run(
        self,
        work_item: WorkItem,
        *,
        episode_id: str | None = None,
        task_id: str | None = None,
        payload_model: type[BaseModel] | None = None,
    ) -> EpisodeResult:
        """Run one episode to its end and return how it went; every step is recorded as it happens.

        `payload_model` is the work item payload's model, passed to the recorder so PHI fields are
        redacted by schema. Policy and tool failures end up in the result; only an error in the
        runtime itself (or the recorder) propagates, after the episode's record is closed.
        """
        policy = self.router.pick(work_item.item_id) if self.router is not None else self.policy
        recorder = self.recorders(episode_id or self.id_factory())
        specs = self.offered_specs()
        prompt = system_prompt(self.config.system_prompt, work_item, self.config.escalate_tool)
        recorder.started(
            work_item,
            payload_model=payload_model,
            policy=policy.ref,
            tools=[spec.name for spec in specs],
            tools_hash=tools_hash(specs),
            system_prompt_hash=prompt_hash(prompt),
            max_steps=self.config.max_steps,
            max_seconds=self.config.max_seconds,
            world_snapshot=world_snapshot(self.toolbox) if self.config.snapshot_world else None,
            task_id=task_id,
        )
        episode = Episode(
            policy=policy,
            toolbox=self.toolbox,
            builtin_escalate=self._builtin_escalate,
            recorder=recorder,
            config=self.config,
            clock=self.clock,
            id_factory=self.id_factory,
            messages=[{"role": "system", "content": prompt}, work_item_message(work_item)],
            tools=[spec.openai_tool() for spec in specs],
        )
        return episode.run()
