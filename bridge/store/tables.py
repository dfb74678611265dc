"""The archive and projection tables (sqlmodel), prefixed so they can share a database.

`event_archive` is the record: every event as received, append-only. Every `proj_*` table is a
projection: derived from the archive by the reducers, droppable and rebuildable (`loopline replay`).
Projections hold no wall-clock columns, so a rebuild reproduces them exactly.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

# SQLite only auto-increments an INTEGER PRIMARY KEY; Postgres wants a 64-bit identity.
_POSITION = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_TZ = sa.DateTime(timezone=True)


class ArchivedEvent(SQLModel, table=True):
    """One event exactly as received, with where it came from."""

    __tablename__ = "event_archive"
    __table_args__ = (
        sa.UniqueConstraint("source", "event_id", name="uq_event_archive_source_id"),
        sa.Index("ix_event_archive_stream", "episodeid", "seq"),
    )

    position: int | None = Field(
        default=None, sa_column=sa.Column(_POSITION, primary_key=True, autoincrement=True)
    )
    event_id: str = Field(max_length=64)
    source: str = Field(max_length=256)
    type: str = Field(max_length=128, index=True)
    episodeid: str = Field(max_length=128)
    seq: int = Field(sa_type=sa.BigInteger)
    tenant: str = Field(max_length=64)
    time: datetime = Field(sa_type=_TZ)
    hash: str = Field(max_length=64)
    # The structured JSON text as received, ASCII-escaped so NULs and lone surrogates survive
    # every engine; parsed back it hashes to what the producer wrote.
    structured: str = Field(sa_type=sa.Text)
    kafka_topic: str | None = Field(default=None, max_length=255)
    kafka_partition: int | None = Field(default=None)
    kafka_offset: int | None = Field(default=None, sa_type=sa.BigInteger)
    archived_at: datetime = Field(sa_type=_TZ)


class EventMac(SQLModel, table=True):
    """The producer's MAC an archived event arrived with (`bridge.audit.event_keys`): part of the
    record, not a projection, so an auditor holding the keys can check every archived event was
    written by a named producer, including one added to the database around the stream worker."""

    __tablename__ = "event_macs"

    source: str = Field(primary_key=True, max_length=256)
    event_id: str = Field(primary_key=True, max_length=64)
    key_id: str = Field(max_length=128)
    mac: str = Field(max_length=128)


class EpisodeRow(SQLModel, table=True):
    """One episode: who worked which item, how it went, and the latest business outcome."""

    __tablename__ = "proj_episodes"

    episode_id: str = Field(primary_key=True, max_length=128)
    tenant: str = Field(max_length=64, index=True)
    work_item_id: str | None = Field(default=None, index=True)
    work_item_kind: str | None = None
    work_item_domain: str | None = None
    task_id: str | None = None
    policy_model: str | None = None
    policy_adapter_id: str | None = None
    policy_route: str | None = None
    status: str | None = Field(default=None, index=True)
    steps: int = 0
    tool_calls: int = 0
    human_actions: int = 0
    started_at: datetime | None = Field(default=None, sa_type=_TZ, index=True)
    ended_at: datetime | None = Field(default=None, sa_type=_TZ)
    duration_ms: float | None = None
    escalated: bool = False
    escalation_reason: str | None = Field(default=None, sa_type=sa.Text)
    latest_outcome: str | None = None
    latest_outcome_at: datetime | None = Field(default=None, sa_type=_TZ)


class ToolCallRow(SQLModel, table=True):
    """One tool call and its tri-state outcome (None while no result has been seen)."""

    __tablename__ = "proj_tool_calls"

    episode_id: str = Field(primary_key=True, max_length=128)
    call_id: str = Field(primary_key=True, max_length=128)
    tenant: str = Field(max_length=64)
    tool: str = Field(max_length=128, index=True)
    arguments: str = Field(default="{}", sa_type=sa.Text)
    side_effect: str | None = None
    called_at: datetime | None = Field(default=None, sa_type=_TZ)
    called_seq: int | None = None
    outcome: str | None = None
    error_kind: str | None = None
    error_message: str | None = Field(default=None, sa_type=sa.Text)
    http_status: int | None = None
    latency_ms: float | None = None
    attempts: int | None = None
    finished_at: datetime | None = Field(default=None, sa_type=_TZ)


class OutcomeRow(SQLModel, table=True):
    """A later business fact about an episode's work item."""

    __tablename__ = "proj_outcomes"

    event_id: str = Field(primary_key=True, max_length=64)
    source: str = Field(primary_key=True, max_length=256)
    episode_id: str = Field(max_length=128, index=True)
    tenant: str = Field(max_length=64)
    seq: int = Field(sa_type=sa.BigInteger)
    item_id: str
    kind: str
    amount: str | None = None  # decimal as text: exact on both engines
    reason_codes: str = Field(default="[]", sa_type=sa.Text)
    observed_at: datetime = Field(sa_type=_TZ)


class ToolErrorRateRow(SQLModel, table=True):
    """Per tool: calls made, failed and of unknown outcome."""

    __tablename__ = "proj_tool_error_rates"

    tool: str = Field(primary_key=True, max_length=128)
    calls: int = 0
    failures: int = 0
    unknown: int = 0


class EdgeCaseRow(SQLModel, table=True):
    """One distinct edge case (by fingerprint): when first and last reported, and how often.

    `count` is the number of `edge_case.detected` events of the fingerprint, which is also the next
    `seq` of its `edgecase:<fingerprint>` stream; `last_hash` is that stream's tip.
    """

    __tablename__ = "proj_edge_cases"

    fingerprint: str = Field(primary_key=True, max_length=64)
    rule: str = Field(max_length=128, index=True)
    severity: str
    summary: str = Field(sa_type=sa.Text)
    tenant: str = Field(max_length=64)
    episode_id: str = Field(max_length=128)
    last_episode_id: str = Field(max_length=128)
    first_seen: datetime = Field(sa_type=_TZ)
    last_seen: datetime = Field(sa_type=_TZ, index=True)
    count: int = 1
    last_event_id: str = Field(max_length=64)
    last_hash: str = Field(max_length=64)
    evidence: str = Field(default="{}", sa_type=sa.Text)


def _table(model: type[SQLModel]) -> sa.Table:
    table: sa.Table = model.__table__  # type: ignore[attr-defined]
    return table


ARCHIVE_TABLE = _table(ArchivedEvent)
MAC_TABLE = _table(EventMac)
EPISODES = _table(EpisodeRow)
TOOL_CALLS = _table(ToolCallRow)
OUTCOMES = _table(OutcomeRow)
TOOL_RATES = _table(ToolErrorRateRow)
EDGE_CASES = _table(EdgeCaseRow)
PROJECTION_TABLES: tuple[sa.Table, ...] = (EPISODES, TOOL_CALLS, OUTCOMES, TOOL_RATES, EDGE_CASES)
ALL_TABLES: tuple[sa.Table, ...] = (ARCHIVE_TABLE, MAC_TABLE, *PROJECTION_TABLES)
