"""The audit's checks beyond the chain: stored hashes against content, growth past the newest
checkpoint, and projections against a rebuild.

- **Hash columns**: the archive files each event's hash in a column of its own (what checkpoints
  are compared with, and what the next event's `prevhash` is checked against at admission). An
  edit that re-hashes the structured JSON, and re-chains it, but leaves the column is named here:
  every row's column must equal the hash recomputed from its content.
- **Unsigned growth**: a stream of a producer that checkpoints (the bridge, the detector) may hold
  events past its newest checkpointed head only while they can be in flight: read from the event
  topic (and, when the topic was read, held by it: `bridge.store.audit_topic`), and written less
  than `lag_s` ago. Others were appended around the producer (its
  checkpoints never saw them), or the producer stopped checkpointing. A stream such a producer
  never checkpointed at all is the same.
- **Projections**: the read side is rebuilt from the archive into a scratch database and compared
  row by row; an edited, added or deleted projection row is named.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from bridge.store.archive import SqlEventArchive
from bridge.store.audit_topic import TopicRecord
from bridge.store.tables import ARCHIVE_TABLE, PROJECTION_TABLES
from schemas.chain import hash_structured


def audit_hash_columns(archive: SqlEventArchive) -> list[str]:
    """Every archived row whose hash column is not the hash of its content."""
    a = ARCHIVE_TABLE
    query = sa.select(a.c.episodeid, a.c.seq, a.c.hash, a.c.structured).order_by(a.c.episodeid, a.c.seq)
    findings = []
    with archive.engine.connect() as conn:
        for row in conn.execution_options(yield_per=2000).execute(query):
            doc = json.loads(row.structured)
            computed = hash_structured(doc)
            if computed != row.hash or doc.get("hash") != row.hash:
                findings.append(
                    f"stream {row.episodeid} seq {row.seq}: hash_mismatch: the content hashes to "
                    f"{computed}, the archive files it under {row.hash} (edited)"
                )
    return findings


def audit_unsigned_growth(
    archive: SqlEventArchive,
    heads: Mapping[str, tuple[int, str]],
    checkpointing: Iterable[str],
    *,
    lag_s: float,
    now: datetime | None = None,
    topic: TopicRecord | None = None,
) -> list[str]:
    """Events of streams written by a `checkpointing` source past their newest checkpointed head
    (`heads`) that cannot be in flight: archived with no position on the event topic (written
    around the stream worker), with a position the read `topic` does not hold the event at any
    offset of, or written more than `lag_s` before `now`."""
    sources, at = set(checkpointing), now or datetime.now(UTC)
    a = ARCHIVE_TABLE
    query = (
        sa.select(a.c.episodeid, a.c.seq, a.c.source, a.c.event_id, a.c.structured, a.c.kafka_topic)
        .where(a.c.source.in_(sorted(sources)))
        .order_by(a.c.episodeid, a.c.seq)
    )
    findings = []
    with archive.engine.connect() as conn:
        for row in conn.execution_options(yield_per=2000).execute(query):
            head = heads.get(row.episodeid)
            if head is not None and row.seq <= head[0]:
                continue
            covered = (
                "no checkpoint holds the stream"
                if head is None
                else f"its newest checkpoint ends at seq {head[0]}"
            )
            written = _time(json.loads(row.structured).get("time"))
            if row.kafka_topic is None:
                why = "and it never came through the event topic (written around the stream worker)"
            elif (
                topic is not None
                and row.kafka_topic == topic.topic
                and not topic.holds(row.source, row.event_id)
            ):
                why = f"and {topic.topic} does not hold it (a faked topic position)"
            elif topic is not None and row.kafka_topic != topic.topic:
                why = f"and it names {row.kafka_topic}, not the event topic {topic.topic}"
            elif written is None or (at - written).total_seconds() > lag_s:
                why = f"and it is older than the allowed lag of {lag_s:g} s"
            else:
                continue  # in flight: the producer's next checkpoint covers it
            findings.append(f"stream {row.episodeid} seq {row.seq}: unsigned_growth: {covered}, {why}")
    return findings


def audit_projections(archive: SqlEventArchive) -> list[str]:
    """Every projection row that differs from a rebuild of the archive (missing, extra or edited)."""
    with tempfile.TemporaryDirectory(prefix="loopline-audit-") as scratch:
        rebuilt = SqlEventArchive(f"sqlite:///{Path(scratch) / 'rebuilt.db'}")
        try:
            rebuilt.create_schema()
            rebuilt.rebuild(archive.iter_structured())
            findings = []
            for table in PROJECTION_TABLES:
                stored, expected = _rows(archive.engine, table), _rows(rebuilt.engine, table)
                for key in sorted(set(stored) | set(expected)):
                    if key not in expected:
                        findings.append(f"{table.name} {key}: projection_extra: no archived event makes it")
                    elif key not in stored:
                        findings.append(f"{table.name} {key}: projection_missing: the archive makes it")
                    elif stored[key] != expected[key]:
                        changed = sorted(c for c in expected[key] if stored[key].get(c) != expected[key][c])
                        findings.append(
                            f"{table.name} {key}: projection_edited: {', '.join(changed)} differ from a rebuild"
                        )
            return findings
        finally:
            rebuilt.engine.dispose()


def _rows(engine: sa.Engine, table: sa.Table) -> dict[str, dict[str, str]]:
    keys = [c.name for c in table.primary_key.columns]
    rows: dict[str, dict[str, str]] = {}
    with engine.connect() as conn:
        for row in conn.execute(sa.select(table)):
            values = {name: _norm(value) for name, value in row._mapping.items()}
            rows["/".join(values[k] for k in keys)] = values
    return rows


def _norm(value: Any) -> str:
    if isinstance(value, datetime):
        value = value if value.tzinfo else value.replace(tzinfo=UTC)
        return str(value.astimezone(UTC).isoformat())
    return repr(value)


def _time(raw: Any) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
