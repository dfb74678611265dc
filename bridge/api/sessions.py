"""Gateway sessions: episodes driven by an external agent framework, one tool call at a time.

Each open episode has its recorder and counters; calls to one episode are serialised by its lock
(the recorder's chain is single-writer), different episodes run in parallel.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from adapters import Toolbox
from bridge.runtime.recorder import Recorder
from schemas import ToolCall, ToolOutcome, ToolResult, new_id
from schemas.tools import ToolError


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

    def open(self, episode_id: str, recorder: Recorder, max_steps: int) -> GatewaySession:
        with self._lock:
            if len(self._sessions) >= self.max_open:
                raise SessionError(429, f"{self.max_open} gateway episodes are open; close some first")
            session = GatewaySession(recorder, max_steps)
            self._sessions[episode_id] = session
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
