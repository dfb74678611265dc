"""The review page's sign-in: server-side sessions, CSRF tokens, an Origin check, a sign-in limit.

A reviewer signs in once with a bearer token; the cookie then holds only an opaque session id (never
the token), and the session holds who signed in, a CSRF token and when it expires. Sessions live in
a `SessionStore`: in memory by default, in the archive's database in a deployed bridge
(`bridge.store.review_sessions.SqlSessionStore`), so a restart signs no one out and every pod
behind the ingress knows every session; the store keeps only a hash of each id. Every form
carries the session's CSRF token, and a POST whose `Origin` is another site is refused before it
is read. Sign-in attempts are counted per client (in each process): past `max_attempts` failures
in `window_s`, further attempts are refused until the window has passed. Sessions end at `ttl_s`
(wall-clock time, shared by every process), or on sign-out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from bridge.api.auth import Caller, Role
from bridge.store.review_sessions import SessionRecord

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


class SessionStore(Protocol):
    """Where sessions are kept, by the hash of their id."""

    def put(self, record: SessionRecord) -> None: ...
    def get(self, id_hash: str) -> SessionRecord | None: ...
    def delete(self, id_hash: str) -> None: ...
    def sweep(self, now: float) -> int: ...


@dataclass
class InMemorySessionStore:
    """Sessions in this process only (tests, a bridge without an archive database)."""

    _rows: dict[str, SessionRecord] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def put(self, record: SessionRecord) -> None:
        with self._lock:
            self._rows.setdefault(record.id_hash, record)

    def get(self, id_hash: str) -> SessionRecord | None:
        with self._lock:
            return self._rows.get(id_hash)

    def delete(self, id_hash: str) -> None:
        with self._lock:
            self._rows.pop(id_hash, None)

    def sweep(self, now: float) -> int:
        with self._lock:
            ended = [k for k, r in self._rows.items() if r.expires_at <= now]
            for key in ended:
                del self._rows[key]
            return len(ended)


def id_hash(session_id: str) -> str:
    """What the store keeps of a session id."""
    return hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()


@dataclass
class ReviewSessions:
    """Sessions in their store, and failed sign-ins by client; thread-safe (routes run in a thread
    pool)."""

    ttl_s: float = DEFAULT_TTL_S
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    window_s: float = DEFAULT_WINDOW_S
    clock: Callable[[], float] = time.time
    store: SessionStore = field(default_factory=InMemorySessionStore)
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
        self.store.put(
            SessionRecord(
                id_hash=id_hash(session.id),
                role=caller.role.value,
                caller_id=caller.id,
                name=caller.name,
                csrf=session.csrf,
                expires_at=session.expires_at,
            )
        )
        return session

    def get(self, session_id: str | None) -> ReviewSession | None:
        """The live session with this id; None when unknown, ended or expired."""
        if not session_id:
            return None
        key = id_hash(session_id)
        record = self.store.get(key)
        if record is None:
            return None
        if record.expires_at <= self.clock():
            self.store.delete(key)
            return None
        caller = Caller(Role(record.role), record.caller_id, record.name)
        return ReviewSession(session_id, caller, record.csrf, record.expires_at)

    def end(self, session_id: str | None) -> None:
        """Sign out: the session id is no longer accepted."""
        if session_id:
            self.store.delete(id_hash(session_id))

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
        self.store.sweep(now)
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
