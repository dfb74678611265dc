"""`MemoryRecorder`: the `Recorder` port over a hash chain in memory, for evaluation and tests.

It writes what `bridge.recording.EpisodeRecorder` writes (same event types, subjects and chain)
without redaction or a durable sink: evaluation worlds are synthetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from schemas.chain import EpisodeChain
from schemas.envelope import Event
from schemas.events import (
    EpisodeEnded,
    EpisodeStarted,
    EpisodeStatus,
    Escalated,
    EscalationTrigger,
    ModelResponded,
    PolicyRef,
    ToolCalled,
    ToolFailed,
    ToolReturned,
)
from schemas.ids import new_id
from schemas.registry import EventData
from schemas.tasks import WorkItem
from schemas.tools import SideEffect, ToolCall, ToolOutcome, ToolResult


class MemoryRecorder:
    """Records one episode's events in `events`, in order."""

    def __init__(
        self,
        episode_id: str,
        *,
        tenant: str = "sim",
        source: str = "loopline://engine",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        id_factory: Callable[[], str] = new_id,
    ) -> None:
        self._chain = EpisodeChain(
            episode_id, tenant=tenant, source=source, clock=clock, id_factory=id_factory
        )
        self.events: list[Event] = []

    @property
    def episode_id(self) -> str:
        return self._chain.episode_id

    def append(self, data: EventData, subject: str | None = None) -> Event:
        """Record any event of the episode (e.g. the verifier's `verifier.scored` after the end)."""
        self.events.append(self._chain.append(data, subject=subject))
        return self.events[-1]

    def started(
        self,
        work_item: WorkItem,
        *,
        payload_model: type[BaseModel] | None,
        policy: PolicyRef,
        tools: Sequence[str],
        **setup: Any,
    ) -> Event:
        data = EpisodeStarted(work_item=work_item, policy=policy, tools=tuple(tools), **setup)
        return self.append(data, work_item.item_id)

    def model_responded(self, data: ModelResponded) -> Event:
        return self.append(data)

    def tool_called(
        self, call: ToolCall, side_effect: SideEffect | None, args_model: type[BaseModel] | None
    ) -> Event:
        return self.append(ToolCalled(call=call, side_effect=side_effect), call.name)

    def tool_returned(self, result: ToolResult, result_model: type[BaseModel] | None) -> Event:
        data = ToolReturned(
            call_id=result.call_id, name=result.name, result=result.result or {}, latency_ms=result.latency_ms
        )
        return self.append(data, result.name)

    def tool_failed(self, result: ToolResult, attempts: int = 1) -> Event:
        if result.outcome is ToolOutcome.OK or result.error is None:
            raise ValueError("tool_failed needs a failed or unknown result with an error")
        outcome = ToolOutcome.UNKNOWN if result.outcome is ToolOutcome.UNKNOWN else ToolOutcome.FAILED
        data = ToolFailed(
            call_id=result.call_id,
            name=result.name,
            error=result.error,
            outcome=outcome,
            attempts=attempts,
            latency_ms=result.latency_ms,
        )
        return self.append(data, result.name)

    def escalated(
        self,
        reason: str,
        *,
        trigger: EscalationTrigger,
        recommendation: str | None = None,
        queue: str | None = None,
    ) -> Event:
        return self.append(
            Escalated(reason=reason, trigger=trigger, recommendation=recommendation, queue=queue)
        )

    def ended(self, status: EpisodeStatus, **counts: Any) -> Event:
        return self.append(EpisodeEnded(status=status, **counts))
