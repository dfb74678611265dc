"""The review page's sign-in: server-side sessions, CSRF tokens, an Origin check, a sign-in limit.

A reviewer signs in once with a bearer token; the cookie then holds only an opaque session id (never
the token), and the session, kept here in memory, holds who signed in, a CSRF token and when it
expires. Every form carries the session's CSRF token, and a POST whose `Origin` is another site is
refused before it is read. Sign-in attempts are counted per client: past `max_attempts` failures in
`window_s`, further attempts are refused until the window has passed. Sessions end at `ttl_s`, or on
sign-out. A restarted bridge forgets its sessions: reviewers sign in again.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from bridge.api.auth import Caller

COOKIE = "loopline_review_session"
DEFAULT_TTL_S = 8 * 3600.0
DEFAULT_MAX_ATTEMPTS = 5
DEFAULT_WINDOW_S = 60.0


@dataclass(frozen=True)
class ReviewSession:
    """One signed-in reviewer."""

    id: str
    """The opaque id the cookie holds."""
    caller: Caller
    """Who signed in (their identity is the reviewer on every decision and label)."""
    csrf: str
    """The token every form of this session must carry."""
    expires_at: float
    """When it ends, on the sessions' clock."""

    def csrf_ok(self, sent: str) -> bool:
        """Whether a form carried this session's CSRF token."""
        return hmac.compare_digest(self.csrf.encode(), sent.encode("utf-8", "replace"))


@dataclass
class ReviewSessions:
    """Sessions by id, and failed sign-ins by client; thread-safe (routes run in a thread pool)."""

    ttl_s: float = DEFAULT_TTL_S
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    window_s: float = DEFAULT_WINDOW_S
    clock: Callable[[], float] = time.monotonic
    _sessions: dict[str, ReviewSession] = field(default_factory=dict)
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.ttl_s <= 0 or self.max_attempts < 1 or self.window_s <= 0:
            raise ValueError("ttl_s and window_s must be positive and max_attempts at least 1")

    def start(self, caller: Caller) -> ReviewSession:
        """A new session for `caller`."""
        session = ReviewSession(
            id=secrets.token_urlsafe(32),
            caller=caller,
            csrf=secrets.token_urlsafe(32),
            expires_at=self.clock() + self.ttl_s,
        )
        with self._lock:
            self._sweep()
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None) -> ReviewSession | None:
        """The live session with this id; None when unknown, ended or expired."""
        if not session_id:
            return None
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and session.expires_at <= self.clock():
                del self._sessions[session_id]
                return None
            return session

    def end(self, session_id: str | None) -> None:
        """Sign out: the session id is no longer accepted."""
        with self._lock:
            self._sessions.pop(session_id or "", None)

    def retry_after(self, client: str) -> float | None:
        """Seconds until `client` may try to sign in again; None when it may now."""
        with self._lock:
            recent = self._recent(client)
            if len(recent) < self.max_attempts:
                return None
            return max(recent[0] + self.window_s - self.clock(), 0.0)

    def failed(self, client: str) -> None:
        """Count a failed sign-in by `client`."""
        with self._lock:
            self._recent(client).append(self.clock())

    def _recent(self, client: str) -> deque[float]:
        attempts = self._failures.setdefault(client, deque())
        while attempts and attempts[0] <= self.clock() - self.window_s:
            attempts.popleft()
        return attempts

    def _sweep(self) -> None:
        now = self.clock()
        for key in [k for k, s in self._sessions.items() if s.expires_at <= now]:
            del self._sessions[key]
        for key in [k for k, a in self._failures.items() if not a or a[-1] <= now - self.window_s]:
            del self._failures[key]


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a POST's `Origin` header names this site's host (the `Host` it was sent to). The
    scheme is not compared: behind a TLS-terminating proxy the bridge itself is reached over http.
    A browser sends `Origin` on every form POST; a request without it (not a browser) is judged by
    the CSRF token alone."""
    if origin is None:
        return True
    _, sep, netloc = origin.partition("://")
    return bool(sep) and host is not None and netloc.lower() == host.lower()


def over_https(scheme: str, forwarded_proto: str | None) -> bool:
    """Whether the browser reached the page over https: directly, or through a proxy that says so
    (`X-Forwarded-Proto`; trusting it can only make the cookie stricter)."""
    return scheme == "https" or (forwarded_proto or "").split(",")[0].strip().lower() == "https"
