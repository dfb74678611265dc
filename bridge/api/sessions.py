"""Gateway sessions: episodes driven by an external agent framework, one tool call at a time.

Each open episode has its recorder, counters and owner (the caller that opened it; no other caller
can reach it); calls to one episode are serialised by its lock (the recorder's chain is
single-writer), different episodes run in parallel. Sessions are bounded three ways: per caller
(`max_per_caller`, so one caller's flood does not lock another out), in all (`max_open`), and in
time: a session idle for `idle_timeout_s` is closed as `aborted` with the reason recorded, so an
abandoned episode is never left open silently.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
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
    owner: str
    opened: float
    touched: float
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class GatewaySessions:
    """Open gateway episodes, bounded per caller, in all and in idle time."""

    def __init__(
        self,
        toolbox: Toolbox,
        *,
        max_open: int = 10_000,
        max_per_caller: int = 100,
        idle_timeout_s: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.toolbox = toolbox
        self.max_open, self.max_per_caller, self.idle_timeout_s = max_open, max_per_caller, idle_timeout_s
        self._clock = clock
        self._sessions: dict[str, GatewaySession] = {}
        self._per_caller: dict[str, int] = {}
        self._lock = threading.Lock()

    def _forget(self, episode_id: str) -> GatewaySession | None:
        session = self._sessions.pop(episode_id, None)
        if session is not None:
            left = self._per_caller.get(session.owner, 1) - 1
            if left > 0:
                self._per_caller[session.owner] = left
            else:
                self._per_caller.pop(session.owner, None)
        return session

    def expire(self) -> int:
        """Close every session idle past `idle_timeout_s` as `aborted` (recorded); how many."""
        now = self._clock()
        with self._lock:
            stale = [key for key, s in self._sessions.items() if now - s.touched > self.idle_timeout_s]
            sessions = [(key, self._forget(key)) for key in stale]
        for _key, session in sessions:
            if session is not None:
                self._end(session, "aborted", f"gateway session idle for over {self.idle_timeout_s:g} s")
        return len(sessions)

    def _end(self, session: GatewaySession, status: EpisodeStatus, final_message: str | None) -> Event:
        with session.lock:
            return session.recorder.ended(
                status,
                steps=session.calls,
                tool_calls=session.calls,
                duration_ms=(self._clock() - session.opened) * 1000,
                final_message=final_message,
            )

    def open(
        self,
        episode_id: str,
        recorder: Recorder,
        work_item: WorkItem,
        *,
        model: str,
        max_steps: int,
        owner: str,
        payload_model: type[BaseModel] | None = None,
    ) -> GatewaySession:
        """Start recording an episode an external agent (the caller `owner`) works with `model`."""
        self.expire()
        with self._lock:
            if self._per_caller.get(owner, 0) >= self.max_per_caller:
                raise SessionError(
                    429, f"this caller has {self.max_per_caller} gateway episodes open; close some first"
                )
            if len(self._sessions) >= self.max_open:
                raise SessionError(429, f"{self.max_open} gateway episodes are open; close some first")
            now = self._clock()
            session = GatewaySession(recorder, max_steps, owner, opened=now, touched=now)
            self._sessions[episode_id] = session
            self._per_caller[owner] = self._per_caller.get(owner, 0) + 1
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

    def get(self, episode_id: str, owner: str) -> GatewaySession:
        """The open session of `episode_id` if `owner` opened it (404 otherwise: another caller's
        episode reads as absent); expired sessions are closed first."""
        self.expire()
        with self._lock:
            session = self._sessions.get(episode_id)
            if session is None or session.owner != owner:
                raise SessionError(404, f"no open gateway episode {episode_id!r}")
            session.touched = self._clock()
        return session

    def pop(self, episode_id: str, owner: str) -> GatewaySession:
        with self._lock:
            session = self._sessions.get(episode_id)
            if session is None or session.owner != owner:
                raise SessionError(404, f"no open gateway episode {episode_id!r}")
            self._forget(episode_id)
        return session

    def open_count(self, owner: str | None = None) -> int:
        """Open sessions, of one caller or in all."""
        with self._lock:
            return len(self._sessions) if owner is None else self._per_caller.get(owner, 0)

    def escalate(
        self, episode_id: str, owner: str, reason: str, *, recommendation: str | None, queue: str | None
    ) -> Event:
        """Record that the external agent handed the episode to a human."""
        session = self.get(episode_id, owner)
        with session.lock:
            return session.recorder.escalated(
                reason, trigger="policy", recommendation=recommendation, queue=queue
            )

    def close(
        self, episode_id: str, owner: str, status: EpisodeStatus, *, final_message: str | None
    ) -> Event:
        """Record the end of the episode and forget it."""
        return self._end(self.pop(episode_id, owner), status, final_message)

    def close_all(self, reason: str) -> int:
        """Close every open session as `aborted` with `reason` (the bridge shutting down); how many."""
        with self._lock:
            sessions = [self._forget(key) for key in list(self._sessions)]
        for session in sessions:
            if session is not None:
                self._end(session, "aborted", reason)
        return len(sessions)

    def call(
        self, episode_id: str, owner: str, name: str, arguments: dict[str, Any], call_id: str | None
    ) -> ToolResult:
        """Record, execute and record the result of one call."""
        session = self.get(episode_id, owner)
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
