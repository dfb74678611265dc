"""`WorldStore`: a sandbox's world in SQLite (or any SQLAlchemy URL), one row per entity.

Every domain's sandbox keeps its world here. A world is a pydantic model whose collections are
dicts of entities by key and whose other parts (the date, counters, policies) are scalars. The
store keeps the current world in memory for reads and writes through every change: after a tool
call it upserts only the entities whose object changed (worlds share untouched entities, so
identity is the change test). Rows carry the world's name, so sandboxes of several domains can
share one database. A restarted sandbox on the same database resumes the same world.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import registry
from sqlalchemy.pool import StaticPool
from sqlmodel import Field, Session, SQLModel, col, create_engine, delete, select

W = TypeVar("W", bound=BaseModel)


class _WorldTables(SQLModel, registry=registry()):
    """Own metadata, so a sandbox never creates (or sees) other packages' tables."""


class EntityRow(_WorldTables, table=True):
    """One entity of one collection of a named world, as JSON."""

    __tablename__ = "sandbox_entity"
    world: str = Field(primary_key=True)
    collection: str = Field(primary_key=True)
    key: str = Field(primary_key=True)
    data: str


class MetaRow(_WorldTables, table=True):
    """One scalar part of a named world (its date, counters, policies), as JSON."""

    __tablename__ = "sandbox_meta"
    world: str = Field(primary_key=True)
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


class WorldStore(Generic[W]):
    """A named world, durable in SQL, current in memory.

    `collections` names the world's dict-of-entities fields; `meta` its other stored fields.
    """

    def __init__(
        self, url: str, *, name: str, world_type: type[W], collections: tuple[str, ...], meta: tuple[str, ...]
    ) -> None:
        self.engine = _engine(url)
        _WorldTables.metadata.create_all(self.engine)
        self.name = name
        self.world_type = world_type
        self._collections = collections
        self._meta = meta
        self._world: W | None = None

    @property
    def world(self) -> W:
        if self._world is None:
            raise LookupError("the store holds no world; load one first")
        return self._world

    def load(self) -> W | None:
        """The stored world, or None when none is stored under this name."""
        with Session(self.engine) as session:
            meta = {
                row.key: json.loads(row.data)
                for row in session.exec(select(MetaRow).where(col(MetaRow.world) == self.name))
            }
            if not meta:
                return None
            state: dict[str, Any] = {**meta, **{name: {} for name in self._collections}}
            for row in session.exec(select(EntityRow).where(col(EntityRow.world) == self.name)):
                state[row.collection][row.key] = json.loads(row.data)
        self._world = self.world_type.model_validate(state)
        return self._world

    def replace(self, world: W) -> None:
        """Drop whatever is stored under this name and store `world`."""
        with Session(self.engine) as session:
            session.exec(delete(EntityRow).where(col(EntityRow.world) == self.name))
            session.exec(delete(MetaRow).where(col(MetaRow.world) == self.name))
            for name in self._collections:
                for key, entity in self._entities(world, name).items():
                    session.add(self._entity_row(name, key, entity))
            for key in self._meta:
                session.add(MetaRow(world=self.name, key=key, data=_meta_json(world, key)))
            session.commit()
        self._world = world

    def commit(self, new: W) -> None:
        """Store the successor of the current world, writing only what changed."""
        old = self.world
        if new is old:
            return
        with Session(self.engine) as session:
            for name in self._collections:
                before, after = self._entities(old, name), self._entities(new, name)
                if before is after:
                    continue
                for key, entity in after.items():
                    if before.get(key) is not entity:
                        session.merge(self._entity_row(name, key, entity))
                for key in before.keys() - after.keys():
                    row = session.get(EntityRow, (self.name, name, key))
                    if row is not None:
                        session.delete(row)
            for key in self._meta:
                if getattr(old, key) != getattr(new, key):
                    session.merge(MetaRow(world=self.name, key=key, data=_meta_json(new, key)))
            session.commit()
        self._world = new

    @staticmethod
    def _entities(world: W, collection: str) -> Mapping[str, BaseModel]:
        entities: Mapping[str, BaseModel] = getattr(world, collection)
        return entities

    def _entity_row(self, collection: str, key: str, entity: BaseModel) -> EntityRow:
        return EntityRow(world=self.name, collection=collection, key=key, data=entity.model_dump_json())


def _meta_json(world: BaseModel, key: str) -> str:
    return json.dumps(world.model_dump(mode="json", include={key})[key])
