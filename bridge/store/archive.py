"""`SqlEventArchive`: every event as received, idempotent on (source, id), with its projections.

An append inserts the events it has not seen (`INSERT ... ON CONFLICT DO NOTHING ... RETURNING`) and
applies the projection ops of exactly those, in the same transaction. Redelivering an event, or a
whole batch, therefore changes nothing: at-least-once delivery in, exactly-once effects out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

from bridge.store.apply import apply_ops
from bridge.store.engine import StoreConfig, insert_for, make_engine
from bridge.store.ops import ProjectionOp
from bridge.store.reducers import reduce_event
from bridge.store.tables import ALL_TABLES, ARCHIVE_TABLE, MAC_TABLE, PROJECTION_TABLES
from schemas.codec import EventDecodeError, from_structured, to_structured
from schemas.envelope import GENESIS_HASH, Event

A = ARCHIVE_TABLE


@dataclass(frozen=True)
class ArchiveRecord:
    """An event to archive: decoded, plus its structured JSON as received and its Kafka position."""

    event: Event
    structured: Mapping[str, Any]
    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
    mac: tuple[str, str] | None = None
    """(key id, MAC) of the producer that wrote it, as checked on the way in; kept in `event_macs`."""

    @classmethod
    def of(cls, event: Event, mac: tuple[str, str] | None = None) -> ArchiveRecord:
        """A record for an event this process built itself."""
        return cls(event, to_structured(event), mac=mac)


class ProjectionConflict(RuntimeError):
    """A strict append met a projection op it could not apply (another writer got there first)."""


@dataclass(frozen=True)
class AppendResult:
    """What an append did."""

    inserted: int
    """Events new to the archive (their projections were applied)."""
    duplicates: int
    """Events already archived, or repeated within the batch: nothing changed for them."""
    refused: tuple[ProjectionOp, ...] = field(default=())
    """Projection ops refused (an edge-case stream fork); the events are archived regardless."""


@dataclass(frozen=True)
class RebuildResult:
    """What a rebuild did."""

    events: int
    """Events projected."""
    skipped: int
    """Archived events that no longer decode (edited by hand?); `loopline audit verify` names them."""


def encode_structured(structured: Mapping[str, Any]) -> str:
    """The archive's text form of a structured event (ASCII-escaped JSON)."""
    return json.dumps(structured, separators=(",", ":"), ensure_ascii=True)


class SqlEventArchive:
    """The event archive and its projections, on SQLite or Postgres."""

    def __init__(
        self, engine: Engine | StoreConfig | str, *, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.engine = engine if isinstance(engine, Engine) else make_engine(engine)
        self._clock = clock or (lambda: datetime.now(UTC))

    def create_schema(self) -> None:
        """Create the archive and projection tables that do not exist yet."""
        SQLModel.metadata.create_all(self.engine, tables=list(ALL_TABLES))

    def append(
        self, records: Sequence[ArchiveRecord], *, project: bool = True, strict: bool = False
    ) -> AppendResult:
        """Archive `records` and (unless `project` is False) project the ones that are new.

        `strict`: raise `ProjectionConflict`, archiving nothing, when a projection op is refused;
        a writer of its own stream (the edge-case detector) uses it to never fork its chain.
        """
        unique: dict[tuple[str, str], ArchiveRecord] = {}
        for record in records:
            unique.setdefault((record.event.source, record.event.id), record)
        if not unique:
            return AppendResult(0, len(records))
        now = self._clock()
        rows = [self._row(record, now) for record in unique.values()]
        with self.engine.begin() as conn:
            stmt = insert_for(conn, A).on_conflict_do_nothing(index_elements=["source", "event_id"])
            inserted = {tuple(row) for row in conn.execute(stmt.returning(A.c.source, A.c.event_id), rows)}
            macs = [
                {"source": key[0], "event_id": key[1], "key_id": rec.mac[0], "mac": rec.mac[1]}
                for key, rec in unique.items()
                if key in inserted and rec.mac is not None
            ]
            if macs:
                mac_stmt = insert_for(conn, MAC_TABLE).on_conflict_do_nothing(
                    index_elements=["source", "event_id"]
                )
                conn.execute(mac_stmt, macs)
            refused: list[ProjectionOp] = []
            if project and inserted:
                ops = [op for key, rec in unique.items() if key in inserted for op in reduce_event(rec.event)]
                refused = apply_ops(conn, ops)
                if refused and strict:
                    raise ProjectionConflict(f"{len(refused)} projection op(s) refused: {refused[0]}")
        return AppendResult(len(inserted), len(records) - len(inserted), tuple(refused))

    @staticmethod
    def _row(record: ArchiveRecord, now: datetime) -> dict[str, Any]:
        event = record.event
        return {
            "event_id": event.id,
            "source": event.source,
            "type": event.type,
            "episodeid": event.episodeid,
            "seq": event.seq,
            "tenant": event.tenant,
            "time": event.time,
            "hash": event.hash,
            "structured": encode_structured(record.structured),
            "kafka_topic": record.topic,
            "kafka_partition": record.partition,
            "kafka_offset": record.offset,
            "archived_at": now,
        }

    def rebuild(
        self,
        source: Iterable[Event | Mapping[str, Any]] | None = None,
        *,
        batch_size: int = 2000,
        progress: Callable[[int], None] | None = None,
    ) -> RebuildResult:
        """Drop every projection and rebuild it from `source` (default: this archive), atomically.

        Readers see the old projections until the rebuild commits. Events repeated in `source` are
        projected once, as the projector would.
        """
        seen: set[tuple[str, str]] = set()
        projected = skipped = 0
        with self.engine.begin() as conn:
            # The archive is read on the writing connection: one transaction, any engine.
            events = (doc for _, doc in _pages(conn, batch_size, None)) if source is None else source
            for table in PROJECTION_TABLES:
                conn.execute(table.delete())
            batch: list[ProjectionOp] = []
            for item in events:
                event = _decode(item)
                if event is None:
                    skipped += 1
                    continue
                if (event.source, event.id) in seen:
                    continue
                seen.add((event.source, event.id))
                batch.extend(reduce_event(event))
                projected += 1
                if projected % batch_size == 0:
                    apply_ops(conn, batch)
                    batch.clear()
                    if progress:
                        progress(batch_size)
            apply_ops(conn, batch)
            if progress:
                progress(projected % batch_size)
        return RebuildResult(projected, skipped)

    def iter_structured(
        self, *, batch_size: int = 2000, stream: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """Archived events as stored, each stream in `seq` order (then arrival order), page by page."""
        for _, doc in self.iter_streams(batch_size=batch_size, stream=stream):
            yield doc

    def iter_streams(
        self, *, batch_size: int = 2000, stream: str | None = None
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Like `iter_structured`, each event paired with the stream the archive filed it under."""
        with self.engine.connect() as conn:
            yield from _pages(conn, batch_size, stream)

    def stream_tip(self, stream: str) -> tuple[int, str]:
        """`(next_seq, prevhash)` to resume appending to `stream` (an episode, `edgecase:...`)."""
        query = sa.select(A.c.seq, A.c.hash).where(A.c.episodeid == stream).order_by(A.c.seq.desc()).limit(1)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return (0, GENESIS_HASH) if row is None else (row.seq + 1, row.hash)

    def head_at(self, stream: str, seq: int) -> tuple[int | None, str | None]:
        """(the stream's last seq, or None without events; the hash of its event at `seq`, or None):
        what a signed checkpoint is compared with (`bridge.audit.checkpoints.compare_heads`)."""
        last = sa.select(sa.func.max(A.c.seq)).where(A.c.episodeid == stream)
        at = sa.select(A.c.hash).where(A.c.episodeid == stream, A.c.seq == seq).limit(1)
        with self.engine.connect() as conn:
            top, digest = conn.execute(last).scalar(), conn.execute(at).scalar()
        return (None if top is None else int(top)), (None if digest is None else str(digest))

    def exists(self) -> bool:
        """Whether the archive table is there (an audit of an empty URL should say so)."""
        return sa.inspect(self.engine).has_table(A.name)

    def ping(self) -> bool:
        """Whether the database answers at all (tells an outage from one poisonous event)."""
        try:
            with self.engine.connect() as conn:
                conn.execute(sa.text("SELECT 1"))
        except sa.exc.SQLAlchemyError:
            return False
        return True

    def count(self, *, source: str | None = None) -> int:
        """Events archived (from `source` only, when given)."""
        query = sa.select(sa.func.count()).select_from(A)
        if source is not None:
            query = query.where(A.c.source == source)
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def arrival_lags(self, source: str) -> list[float]:
        """Seconds from each of `source`'s events' time to its archiving, sorted (capture latency:
        outbox, relay, broker and projector together)."""
        query = sa.select(A.c.time, A.c.archived_at).where(A.c.source == source)
        with self.engine.connect() as conn:
            lags = [(_utc(archived) - _utc(made)).total_seconds() for made, archived in conn.execute(query)]
        return sorted(max(0.0, lag) for lag in lags)


def _utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; the archive writes UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _pages(conn: sa.Connection, batch_size: int, stream: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """Keyset pages over (stream, seq, position): constant memory, stable under concurrent appends."""
    key = sa.tuple_(A.c.episodeid, A.c.seq, A.c.position)
    cursor: tuple[str, int, int] | None = None
    while True:
        query = sa.select(A.c.episodeid, A.c.seq, A.c.position, A.c.structured).order_by(*key.clauses)
        if stream is not None:
            query = query.where(A.c.episodeid == stream)
        if cursor is not None:
            query = query.where(key > sa.tuple_(*cursor))
        page = conn.execute(query.limit(batch_size)).all()
        for row in page:
            yield row.episodeid, json.loads(row.structured)
        if len(page) < batch_size:
            return
        last = page[-1]
        cursor = (last.episodeid, last.seq, last.position)


def _decode(item: Event | Mapping[str, Any]) -> Event | None:
    if isinstance(item, Event):
        return item
    try:
        return from_structured(dict(item))
    except EventDecodeError:
        return None
