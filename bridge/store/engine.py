"""SQL engines for the event archive and projections: SQLite (WAL) and Postgres alike.

The one dialect-specific piece is the upsert: both engines speak `INSERT ... ON CONFLICT`, but
SQLAlchemy builds it from dialect-specific `insert()` constructs, so `insert_for` picks the right one.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

StoreError = sa.exc.SQLAlchemyError
"""What a store operation raises when the database fails: callers outside the stores catch this,
so sqlalchemy stays inside them."""
__all__ = ["Engine", "StoreConfig", "StoreError", "insert_for", "make_engine", "validate_sql_url"]


def validate_sql_url(url: str) -> str:
    """`url` when it names SQLite or Postgres; ValueError saying what is accepted otherwise."""
    try:
        backend = sa.make_url(url).get_backend_name()
    except sa.exc.ArgumentError:
        backend = None
    if backend not in ("sqlite", "postgresql"):
        raise ValueError(
            f"{url!r} is not a SQLite or Postgres URL (sqlite:///path.db, postgresql+psycopg://...)"
        )
    return url


class StoreConfig(BaseModel):
    """Where the archive lives; `loopline` builds this from its settings."""

    model_config = ConfigDict(frozen=True)

    url: str = Field(
        min_length=1, description="SQLAlchemy URL: sqlite:///path.db or postgresql+psycopg://..."
    )
    echo: bool = Field(default=False, description="Log every SQL statement.")
    busy_timeout_ms: int = Field(
        default=10_000, ge=0, description="SQLite: how long a writer waits for the write lock."
    )

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return validate_sql_url(value)


def make_engine(config: StoreConfig | str) -> Engine:
    """An engine for `config`; SQLite files get WAL, a busy timeout and foreign keys on."""
    cfg = StoreConfig(url=config) if isinstance(config, str) else config
    url = sa.make_url(cfg.url)
    if url.get_backend_name() == "sqlite":
        # The streaming agents run SQL in worker threads, one connection per call, never shared.
        connect_args = {"timeout": cfg.busy_timeout_ms / 1000, "check_same_thread": False}
        engine = sa.create_engine(url, echo=cfg.echo, connect_args=connect_args)
        sa.event.listen(engine, "connect", _sqlite_pragmas(cfg.busy_timeout_ms, url.database or ""))
        return engine
    return sa.create_engine(url, echo=cfg.echo, pool_pre_ping=True)


def _sqlite_pragmas(busy_timeout_ms: int, database: str) -> Any:
    in_memory = database in ("", ":memory:")

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        # WAL lets readers (the API, `loopline inspect`) run while the projector writes; NORMAL
        # sync is durable across application crashes, which is the failure WAL mode guards here.
        if not in_memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    return on_connect


def insert_for(engine_or_conn: Engine | sa.Connection, table: sa.Table) -> Any:
    """A dialect-specific INSERT supporting `on_conflict_do_nothing/do_update` (SQLite, Postgres)."""
    name = engine_or_conn.dialect.name
    if name == "postgresql":
        return postgresql.insert(table)
    if name == "sqlite":
        return sqlite.insert(table)
    raise ValueError(f"unsupported SQL dialect {name!r}: the archive runs on SQLite or Postgres")
