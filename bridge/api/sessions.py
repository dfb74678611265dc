"""Gateway sessions: episodes driven by an external agent framework, one tool call at a time.

Each open episode has its recorder and counters; calls to one episode are serialised by its lock
(the recorder's chain is single-writer), different episodes run in parallel.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from adapters import Toolbox
from bridge.runtime.recorder import EpisodeStatus, Recorder
from schemas import Event, ToolCall, ToolOutcome, ToolResult, WorkItem, new_id
from schemas.events import PolicyRef
from schemas.tools import ToolError

GATEWAY_MAX_SECONDS = 86_400.0
"""Recorded wall-time budget of a gateway episode: the external framework enforces its own."""


class SessionError(Exception):
    """A gateway request that cannot be served: `status` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class GatewaySession:
    recorder: Recorder
    max_steps: int
    opened: float = field(default_factory=time.monotonic)
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class GatewaySessions:
    """Open gateway episodes, bounded in number."""

    def __init__(self, toolbox: Toolbox, *, max_open: int = 1000) -> None:
        self.toolbox = toolbox
        self.max_open = max_open
        self._sessions: dict[str, GatewaySession] = {}
        self._lock = threading.Lock()

    def open(
        self,
        episode_id: str,
        recorder: Recorder,
        work_item: WorkItem,
        *,
        model: str,
        max_steps: int,
        payload_model: type[BaseModel] | None = None,
    ) -> GatewaySession:
        """Start recording an episode an external agent works (its policy is `model`)."""
        with self._lock:
            if len(self._sessions) >= self.max_open:
                raise SessionError(429, f"{self.max_open} gateway episodes are open; close some first")
            session = GatewaySession(recorder, max_steps)
            self._sessions[episode_id] = session
        with session.lock:
            recorder.started(
                work_item,
                payload_model=payload_model,
                policy=PolicyRef(model=model, route="champion"),
                tools=list(self.toolbox.names),
                tools_hash=self.toolbox.tools_hash(),
                system_prompt_hash="external",  # the external framework owns its prompt
                max_steps=max_steps,
                max_seconds=GATEWAY_MAX_SECONDS,
            )
        return session

    def get(self, episode_id: str) -> GatewaySession:
        with self._lock:
            session = self._sessions.get(episode_id)
        if session is None:
            raise SessionError(404, f"no open gateway episode {episode_id!r}")
        return session

    def pop(self, episode_id: str) -> GatewaySession:
        with self._lock:
            session = self._sessions.pop(episode_id, None)
        if session is None:
            raise SessionError(404, f"no open gateway episode {episode_id!r}")
        return session

    def escalate(
        self, episode_id: str, reason: str, *, recommendation: str | None, queue: str | None
    ) -> Event:
        """Record that the external agent handed the episode to a human."""
        session = self.get(episode_id)
        with session.lock:
            return session.recorder.escalated(
                reason, trigger="policy", recommendation=recommendation, queue=queue
            )

    def close(self, episode_id: str, status: EpisodeStatus, *, final_message: str | None) -> Event:
        """Record the end of the episode and forget it."""
        session = self.pop(episode_id)
        with session.lock:
            return session.recorder.ended(
                status,
                steps=session.calls,
                tool_calls=session.calls,
                duration_ms=(time.monotonic() - session.opened) * 1000,
                final_message=final_message,
            )

    def call(self, episode_id: str, name: str, arguments: dict[str, Any], call_id: str | None) -> ToolResult:
        """Record, execute and record the result of one call."""
        session = self.get(episode_id)
        call = ToolCall(call_id=call_id or new_id(), name=name, arguments=arguments)
        spec = self.toolbox.spec(name)
        with session.lock:
            session.recorder.tool_called(
                call, spec.side_effect if spec else None, spec.args_model if spec else None
            )
            if session.calls >= session.max_steps:
                error = ToolError(kind="budget", message=f"step budget of {session.max_steps} calls is spent")
                result = ToolResult(call_id=call.call_id, name=name, outcome=ToolOutcome.FAILED, error=error)
            else:
                session.calls += 1
                result = self.toolbox.call(call)
            if result.outcome is ToolOutcome.OK:
                session.recorder.tool_returned(result, spec.result_model if spec else None)
            else:
                session.recorder.tool_failed(result)
        return result
