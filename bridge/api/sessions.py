"""Gateway sessions: engine episodes stepped by an external agent framework, one tool call at a time.

Each open episode is an `engine.EpisodeSession` (its recorder, counters and budgets) with an owner
(the caller that opened it; no other caller can reach it); calls to one episode are serialised by its lock (the recorder's chain is
single-writer), different episodes run in parallel. Sessions are bounded three ways: per caller
(`max_per_caller`, so one caller's flood does not lock another out), in all (`max_open`), and in
time: a session idle for `idle_timeout_s` is closed as `aborted` with the reason recorded, so an
abandoned episode is never left open silently.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from adapters import Toolbox
from engine import EpisodeConfig, EpisodeSession, Recorder
from engine.session import EpisodeEnded
from schemas import Event, ToolCall, ToolResult, WorkItem, new_id
from schemas.events import EpisodeStatus, PolicyRef

GATEWAY_MAX_SECONDS = 86_400.0
"""Recorded wall-time budget of a gateway episode: the external framework enforces its own."""


class SessionError(Exception):
    """A gateway request that cannot be served: `status` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class GatewaySession:
    episode: EpisodeSession
    owner: str
    touched: float
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
            session.episode.end(status, final=final_message)
            assert session.episode.ended_event is not None  # end records it
            return session.episode.ended_event

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
            config = EpisodeConfig(
                max_steps=max_steps,
                max_tool_calls=max_steps,
                max_seconds=GATEWAY_MAX_SECONDS,
                snapshot_world=False,
            )
            episode = EpisodeSession(
                work_item,
                toolbox=self.toolbox,
                recorder=recorder,
                rules=None,
                config=config,
                clock=self._clock,
            )
            session = GatewaySession(episode, owner, touched=self._clock())
            self._sessions[episode_id] = session
            self._per_caller[owner] = self._per_caller.get(owner, 0) + 1
        with session.lock:
            # The external framework owns its prompt.
            episode.start(
                PolicyRef(model=model, route="external"),
                payload_model=payload_model,
                system_prompt_hash="external",
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
        with session.lock, _open(episode_id):
            return session.episode.escalate(reason, "policy", recommendation=recommendation, queue=queue)

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
        """Record, execute and record the result of one call (refused once the budget is spent)."""
        session = self.get(episode_id, owner)
        with session.lock, _open(episode_id):
            return session.episode.step(ToolCall(call_id=call_id or new_id(), name=name, arguments=arguments))


@contextmanager
def _open(episode_id: str) -> Iterator[None]:
    """A session closed by another request between `get` and its lock reads as absent."""
    try:
        yield
    except EpisodeEnded:
        raise SessionError(404, f"no open gateway episode {episode_id!r}") from None
