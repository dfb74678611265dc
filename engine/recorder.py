"""The `Recorder` port: what the engine needs from capture to write one episode's events.

`bridge.recording.EpisodeRecorder` (the durable outbox) satisfies it structurally in production;
`engine.memory.MemoryRecorder` keeps the events in a list for evaluation and tests; both build
their events in `engine.chained.ChainRecorder`. A recorder is bound to one episode and assigns
`seq`, time, ids and the hash chain; the engine only says what happened, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel

from schemas import Event, SideEffect, ToolCall, ToolResult, WorkItem
from schemas.events import EpisodeStatus, EscalationTrigger, ModelResponded, PolicyRef, VerifierScored


class Recorder(Protocol):
    """Writes the events of one episode, in the order the engine reports them."""

    @property
    def episode_id(self) -> str:
        """The episode (stream) this recorder writes."""
        ...

    def started(
        self,
        work_item: WorkItem,
        *,
        payload_model: type[BaseModel] | None,
        policy: PolicyRef,
        tools: Sequence[str],
        tools_hash: str,
        system_prompt_hash: str,
        max_steps: int,
        max_seconds: float,
        world_snapshot: dict[str, Any] | None = None,
        task_id: str | None = None,
    ) -> Event:
        """Record `episode.started`."""
        ...

    def model_responded(self, data: ModelResponded) -> Event:
        """Record one policy turn."""
        ...

    def tool_called(
        self, call: ToolCall, side_effect: SideEffect | None, args_model: type[BaseModel] | None
    ) -> Event:
        """Record a tool call before it runs."""
        ...

    def tool_returned(self, result: ToolResult, result_model: type[BaseModel] | None) -> Event:
        """Record an ok tool result."""
        ...

    def tool_failed(self, result: ToolResult, attempts: int = 1) -> Event:
        """Record a failed or unknown tool result."""
        ...

    def escalated(
        self,
        reason: str,
        *,
        trigger: EscalationTrigger,
        recommendation: str | None = None,
        queue: str | None = None,
    ) -> Event:
        """Record a hand-off to a human."""
        ...

    def ended(
        self,
        status: EpisodeStatus,
        *,
        steps: int,
        tool_calls: int,
        duration_ms: float,
        final_message: str | None = None,
        world_hash: str | None = None,
    ) -> Event:
        """Record `episode.ended`."""
        ...

    def scored(self, data: VerifierScored) -> Event:
        """Record a verifier's verdict on the episode, after its end."""
        ...


RecorderFactory = Callable[[str], Recorder]
"""Makes the recorder of a new episode from its id."""
