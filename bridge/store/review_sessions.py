"""The review page's sign-in sessions, in the archive's database: a restarted bridge keeps them, and
every bridge pod behind one ingress shares them.

A row holds the SHA-256 of the session id (the cookie's value is never stored, so reading the
table signs no one in), who signed in, the session's CSRF token and when it ends (epoch seconds).
The table lives beside the archive's under its own name, created by `create_schema`.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Field as Column
from sqlmodel import SQLModel

from bridge.store.engine import StoreConfig, insert_for, make_engine


@dataclass(frozen=True)
class SessionRecord:
    """A session as stored."""

    id_hash: str
    """SHA-256 (hex) of the opaque session id the cookie holds."""
    role: str
    """The signed-in caller's role."""
    caller_id: str
    """The caller's stable id (never the token)."""
    name: str
    """The person the token belongs to."""
    csrf: str
    """The token every form of the session carries."""
    expires_at: float
    """When it ends (epoch seconds)."""


class SessionRow(SQLModel, table=True):
    """One live review session."""

    __tablename__ = "review_sessions"

    id_hash: str = Column(primary_key=True, max_length=64)
    role: str = Column(max_length=32)
    caller_id: str = Column(max_length=128)
    name: str = Column(max_length=128)
    csrf: str = Column(max_length=128)
    expires_at: float = Column(index=True)


SESSIONS: sa.Table = SessionRow.__table__  # type: ignore[attr-defined]


class SqlSessionStore:
    """Review sessions on SQLite or Postgres (the `SessionStore` of `bridge.api.review_sessions`)."""

    def __init__(self, engine: Engine | StoreConfig | str) -> None:
        self.engine = engine if isinstance(engine, Engine) else make_engine(engine)

    def create_schema(self) -> None:
        """Create the sessions table when it does not exist yet."""
        SQLModel.metadata.create_all(self.engine, tables=[SESSIONS])

    def put(self, record: SessionRecord) -> None:
        """Store a new session (an id already stored keeps its row)."""
        with self.engine.begin() as conn:
            stmt = insert_for(conn, SESSIONS).on_conflict_do_nothing(index_elements=["id_hash"])
            conn.execute(stmt, record.__dict__)

    def get(self, id_hash: str) -> SessionRecord | None:
        """The stored session, whether or not it has expired."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(SESSIONS).where(SESSIONS.c.id_hash == id_hash)).mappings().first()
        return None if row is None else SessionRecord(**dict(row))

    def delete(self, id_hash: str) -> None:
        """Forget a session (signed out, or found expired)."""
        with self.engine.begin() as conn:
            conn.execute(sa.delete(SESSIONS).where(SESSIONS.c.id_hash == id_hash))

    def sweep(self, now: float) -> int:
        """Forget every session that ended by `now`; how many."""
        with self.engine.begin() as conn:
            return int(conn.execute(sa.delete(SESSIONS).where(SESSIONS.c.expires_at <= now)).rowcount)
