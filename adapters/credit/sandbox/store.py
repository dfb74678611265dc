"""`SqlWorldStore`: the credit sandbox's world in SQLite (or any SQLAlchemy URL), one row per entity.

The store keeps the current `World` in memory for reads and writes through every change: after a
tool call it upserts only the entities whose object changed (worlds share untouched entities, so
identity is the change test). A restarted sandbox on the same file resumes the same world.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import registry
from sqlalchemy.pool import StaticPool
from sqlmodel import Field, Session, SQLModel, create_engine, delete, select

from adapters.credit.world import World

COLLECTIONS = ("packages", "recommendations", "requests", "escalations")
META = ("today", "policy", "counters")


class _CreditTables(SQLModel, registry=registry()):
    """Own metadata, so the sandbox never creates (or sees) other packages' tables."""


class EntityRow(_CreditTables, table=True):
    """One entity of one world collection, as JSON."""

    __tablename__ = "credit_entity"
    collection: str = Field(primary_key=True)
    key: str = Field(primary_key=True)
    data: str


class MetaRow(_CreditTables, table=True):
    """One scalar part of the world (date, fund policy, counters), as JSON."""

    __tablename__ = "credit_meta"
    key: str = Field(primary_key=True)
    data: str


def _engine(url: str) -> Engine:
    if url in ("sqlite://", "sqlite:///:memory:"):
        # One shared connection, or every new connection would see an empty in-memory database.
        return create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
    engine = create_engine(url, connect_args={"check_same_thread": False} if url.startswith("sqlite") else {})
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _wal(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute("PRAGMA journal_mode=WAL")
            dbapi_connection.execute("PRAGMA synchronous=NORMAL")

    return engine


class SqlWorldStore:
    """The world, durable in SQL, current in memory."""

    def __init__(self, url: str) -> None:
        self.engine = _engine(url)
        _CreditTables.metadata.create_all(self.engine)
        self._world: World | None = None

    @property
    def world(self) -> World:
        if self._world is None:
            raise LookupError("the store holds no world; load one first")
        return self._world

    def load(self) -> World | None:
        """The stored world, or None for an empty database."""
        with Session(self.engine) as session:
            meta = {row.key: json.loads(row.data) for row in session.exec(select(MetaRow))}
            if not meta:
                return None
            state: dict[str, Any] = {**meta, **{name: {} for name in COLLECTIONS}}
            for row in session.exec(select(EntityRow)):
                state[row.collection][row.key] = json.loads(row.data)
        self._world = World.model_validate(state)
        return self._world

    def replace(self, world: World) -> None:
        """Drop whatever is stored and store `world`."""
        with Session(self.engine) as session:
            session.exec(delete(EntityRow))
            session.exec(delete(MetaRow))
            for name in COLLECTIONS:
                for key, entity in getattr(world, name).items():
                    session.add(EntityRow(collection=name, key=key, data=entity.model_dump_json()))
            for key in META:
                session.add(MetaRow(key=key, data=_meta_json(world, key)))
            session.commit()
        self._world = world

    def commit(self, new: World) -> None:
        """Store the successor of the current world, writing only what changed."""
        old = self.world
        if new is old:
            return
        with Session(self.engine) as session:
            for name in COLLECTIONS:
                before, after = getattr(old, name), getattr(new, name)
                if before is after:
                    continue
                for key, entity in after.items():
                    if before.get(key) is not entity:
                        session.merge(EntityRow(collection=name, key=key, data=entity.model_dump_json()))
                for key in before.keys() - after.keys():
                    row = session.get(EntityRow, (name, key))
                    if row is not None:
                        session.delete(row)
            for key in META:
                if getattr(old, key) != getattr(new, key):
                    session.merge(MetaRow(key=key, data=_meta_json(new, key)))
            session.commit()
        self._world = new


def _meta_json(world: World, key: str) -> str:
    return json.dumps(world.model_dump(mode="json", include={key})[key])
