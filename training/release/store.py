"""The release store (SQL, sqlmodel): every adapter's release record, the hash-chained trail of
release events, and the canary's observations. SQLite (WAL) on one machine, Postgres at scale.

Each state change is a compare-and-set on the adapter's current state and is written in one
transaction with the events that tell it, so a retried step never applies twice and never leaves
a change without its event (or an event without its change).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, select

from training.release.states import AdapterState, ReleaseError

_TZ = sa.DateTime(timezone=True)


class ReleaseAdapterRow(SQLModel, table=True):
    """One adapter in the release registry."""

    __tablename__ = "release_adapters"

    adapter_id: str = Field(primary_key=True, max_length=128)
    served_name: str = Field(unique=True, max_length=200)
    folder: str
    base_model: str
    fingerprint: str = Field(max_length=64)
    parent_adapter_id: str | None = None
    state: str = Field(index=True, max_length=16)
    traffic_share: float = 0.0
    gate_passed: bool
    forced: bool = False
    created_at: datetime = Field(sa_type=_TZ)
    updated_at: datetime = Field(sa_type=_TZ)


class ReleaseEventRow(SQLModel, table=True):
    """One release event, as CloudEvents structured JSON, in its adapter's hash-chained stream."""

    __tablename__ = "release_events"
    __table_args__ = (sa.UniqueConstraint("stream", "seq"),)

    position: int | None = Field(default=None, primary_key=True)
    event_id: str = Field(unique=True, max_length=64)
    stream: str = Field(index=True, max_length=160)
    seq: int
    hash: str = Field(max_length=64)
    type: str = Field(max_length=128)
    adapter_id: str = Field(index=True, max_length=128)
    doc: str


class CanaryObservationRow(SQLModel, table=True):
    """One finished episode during a canary: which arm served it and whether it passed."""

    __tablename__ = "release_canary_observations"

    position: int | None = Field(default=None, primary_key=True)
    episode_id: str = Field(unique=True, max_length=128)
    canary_id: str = Field(index=True, max_length=128)
    arm: str = Field(max_length=16)
    passed: bool
    observed_at: datetime = Field(sa_type=_TZ)


@dataclass(frozen=True)
class AdapterRecord:
    """An adapter's release record."""

    adapter_id: str
    served_name: str
    folder: str
    base_model: str
    fingerprint: str
    parent_adapter_id: str | None
    state: AdapterState
    traffic_share: float
    gate_passed: bool
    forced: bool
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class StateChange:
    """Move one adapter from `expected` to `target`, with its new traffic share."""

    adapter_id: str
    expected: AdapterState
    target: AdapterState
    traffic_share: float


@dataclass(frozen=True)
class StoredEvent:
    """A sealed release event, ready to store."""

    event_id: str
    stream: str
    seq: int
    hash: str
    type: str
    adapter_id: str
    doc: dict[str, Any]


def _record(row: ReleaseAdapterRow) -> AdapterRecord:
    return AdapterRecord(
        adapter_id=row.adapter_id,
        served_name=row.served_name,
        folder=row.folder,
        base_model=row.base_model,
        fingerprint=row.fingerprint,
        parent_adapter_id=row.parent_adapter_id,
        state=row.state,  # type: ignore[arg-type]
        traffic_share=row.traffic_share,
        gate_passed=row.gate_passed,
        forced=row.forced,
        created_at=row.created_at.replace(tzinfo=row.created_at.tzinfo or UTC),
        updated_at=row.updated_at.replace(tzinfo=row.updated_at.tzinfo or UTC),
    )


TABLES = [
    SQLModel.metadata.tables[name]
    for name in ("release_adapters", "release_events", "release_canary_observations")
]


class SqlReleaseStore:
    """The release registry in a SQL database named by a SQLAlchemy URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: Engine = _engine(url)

    def create_schema(self) -> None:
        """Create the release tables when they are missing."""
        SQLModel.metadata.create_all(self.engine, tables=TABLES)

    def close(self) -> None:
        self.engine.dispose()

    def add(self, record: AdapterRecord, events: Sequence[StoredEvent]) -> None:
        """Insert a new adapter with the events that tell it; refuses a known id or served name."""
        with Session(self.engine) as session:
            clash = session.exec(
                select(ReleaseAdapterRow).where(
                    (col(ReleaseAdapterRow.adapter_id) == record.adapter_id)
                    | (col(ReleaseAdapterRow.served_name) == record.served_name)
                )
            ).first()
            if clash is not None:
                raise ReleaseError(
                    f"adapter {clash.adapter_id} already holds id or served name "
                    f"({record.adapter_id!r}, {record.served_name!r}): names are versions, never reused"
                )
            session.add(ReleaseAdapterRow(**record.__dict__))
            _add_events(session, events)
            session.commit()

    def get(self, adapter_id: str) -> AdapterRecord | None:
        """One adapter's record, or None."""
        with Session(self.engine) as session:
            row = session.get(ReleaseAdapterRow, adapter_id)
            return _record(row) if row is not None else None

    def by_served_name(self, served_name: str) -> AdapterRecord | None:
        """The adapter registered under `served_name` (names are never reused), or None."""
        with Session(self.engine) as session:
            row = session.exec(
                select(ReleaseAdapterRow).where(ReleaseAdapterRow.served_name == served_name)
            ).first()
            return _record(row) if row is not None else None

    def adapters(self, state: AdapterState | None = None) -> list[AdapterRecord]:
        """Every adapter (or those in `state`), oldest first."""
        with Session(self.engine) as session:
            query = select(ReleaseAdapterRow).order_by(col(ReleaseAdapterRow.created_at))
            if state is not None:
                query = query.where(ReleaseAdapterRow.state == state)
            return [_record(r) for r in session.exec(query)]

    def apply(self, changes: Sequence[StateChange], events: Sequence[StoredEvent], when: datetime) -> None:
        """Every change as a compare-and-set, and the events, in one transaction; raises
        `ReleaseError` (and changes nothing) when an adapter is no longer in its expected state."""
        with Session(self.engine) as session:
            for change in changes:
                done = session.execute(
                    sa.update(ReleaseAdapterRow)
                    .where(
                        col(ReleaseAdapterRow.adapter_id) == change.adapter_id,
                        col(ReleaseAdapterRow.state) == change.expected,
                    )
                    .values(state=change.target, traffic_share=change.traffic_share, updated_at=when)
                )
                if done.rowcount != 1:  # type: ignore[attr-defined]
                    session.rollback()
                    raise ReleaseError(f"adapter {change.adapter_id} is no longer {change.expected}")
            _add_events(session, events)
            session.commit()

    def stream_head(self, stream: str) -> tuple[int, str] | None:
        """The last (seq, hash) of a release event stream, or None when it is empty."""
        with Session(self.engine) as session:
            row = session.exec(
                select(ReleaseEventRow)
                .where(ReleaseEventRow.stream == stream)
                .order_by(col(ReleaseEventRow.seq).desc())
            ).first()
            return (row.seq, row.hash) if row is not None else None

    def events(self, adapter_id: str | None = None) -> list[dict[str, Any]]:
        """Release events in the order they were written (of one adapter, or all)."""
        with Session(self.engine) as session:
            query = select(ReleaseEventRow).order_by(col(ReleaseEventRow.position))
            if adapter_id is not None:
                query = query.where(ReleaseEventRow.adapter_id == adapter_id)
            return [json.loads(r.doc) for r in session.exec(query)]

    def observe(self, episode_id: str, canary_id: str, arm: str, passed: bool, when: datetime) -> bool:
        """Record one finished episode of a canary's window; False when it was already recorded."""
        with Session(self.engine) as session:
            if session.exec(
                select(CanaryObservationRow).where(CanaryObservationRow.episode_id == episode_id)
            ).first():
                return False
            session.add(
                CanaryObservationRow(
                    episode_id=episode_id, canary_id=canary_id, arm=arm, passed=passed, observed_at=when
                )
            )
            session.commit()
            return True

    def observations(self, canary_id: str) -> tuple[list[bool], list[bool]]:
        """(canary outcomes, champion outcomes) of a canary's window, in the order they came."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(CanaryObservationRow)
                .where(CanaryObservationRow.canary_id == canary_id)
                .order_by(col(CanaryObservationRow.position))
            ).all()
        return [r.passed for r in rows if r.arm == "canary"], [r.passed for r in rows if r.arm == "champion"]


def _add_events(session: Session, events: Sequence[StoredEvent]) -> None:
    for e in events:
        session.add(
            ReleaseEventRow(
                event_id=e.event_id,
                stream=e.stream,
                seq=e.seq,
                hash=e.hash,
                type=e.type,
                adapter_id=e.adapter_id,
                doc=json.dumps(e.doc, sort_keys=True),
            )
        )


def _engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(connection: Any, _record: Any) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return sa.create_engine(url, pool_pre_ping=True)
