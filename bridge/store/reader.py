"""The read API over the archive and projections: `EpisodeStore` and its SQL implementation."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from bridge.store.engine import StoreConfig, make_engine
from bridge.store.tables import ARCHIVE_TABLE, EDGE_CASES, EPISODES, OUTCOMES, TOOL_CALLS, TOOL_RATES
from bridge.store.views import (
    EdgeCaseView,
    EpisodeDetail,
    EpisodeSummary,
    OutcomeView,
    StoredEvent,
    ToolCallView,
    ToolErrorRate,
)

MAX_PAGE = 1000


class EpisodeStore(Protocol):
    """What the HTTP API and `loopline inspect` read. `tenant`, when given, scopes every query."""

    def list_episodes(
        self,
        *,
        tenant: str | None = None,
        status: str | None = None,
        work_item_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[EpisodeSummary]: ...

    def get_episode(self, episode_id: str, *, tenant: str | None = None) -> EpisodeDetail | None: ...

    def episode_events(self, episode_id: str, *, tenant: str | None = None) -> list[StoredEvent]: ...

    def list_edge_cases(
        self,
        *,
        tenant: str | None = None,
        rule: str | None = None,
        since: datetime | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[EdgeCaseView]: ...

    def get_edge_case(self, fingerprint: str, *, tenant: str | None = None) -> EdgeCaseView | None: ...

    def tool_error_rates(self) -> list[ToolErrorRate]: ...


def _page(limit: int, offset: int) -> tuple[int, int]:
    if limit < 1 or offset < 0:
        raise ValueError("limit must be >= 1 and offset >= 0")
    return min(limit, MAX_PAGE), offset


def _scoped(query: Any, table: sa.Table, tenant: str | None) -> Any:
    return query if tenant is None else query.where(table.c.tenant == tenant)


class SqlEpisodeReader:
    """`EpisodeStore` over the SQL archive and projections (SQLite or Postgres)."""

    def __init__(self, engine: Engine | StoreConfig | str) -> None:
        self.engine = engine if isinstance(engine, Engine) else make_engine(engine)

    def _all(self, query: Any) -> list[Any]:
        with self.engine.connect() as conn:
            return list(conn.execute(query).mappings().all())

    def list_episodes(
        self,
        *,
        tenant: str | None = None,
        status: str | None = None,
        work_item_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[EpisodeSummary]:
        """Episodes, newest start first."""
        limit, offset = _page(limit, offset)
        query = _scoped(sa.select(EPISODES), EPISODES, tenant)
        if status is not None:
            query = query.where(EPISODES.c.status == status)
        if work_item_id is not None:
            query = query.where(EPISODES.c.work_item_id == work_item_id)
        query = query.order_by(sa.nulls_last(EPISODES.c.started_at.desc()), EPISODES.c.episode_id)
        return [EpisodeSummary.model_validate(row) for row in self._all(query.limit(limit).offset(offset))]

    def get_episode(self, episode_id: str, *, tenant: str | None = None) -> EpisodeDetail | None:
        """An episode with its tool calls and outcomes; None when unknown (or another tenant's)."""
        rows = self._all(
            _scoped(sa.select(EPISODES).where(EPISODES.c.episode_id == episode_id), EPISODES, tenant)
        )
        if not rows:
            return None
        calls = self._all(
            sa.select(TOOL_CALLS)
            .where(TOOL_CALLS.c.episode_id == episode_id)
            .order_by(sa.nulls_last(TOOL_CALLS.c.called_seq.asc()), TOOL_CALLS.c.call_id)
        )
        outcomes = self._all(
            sa.select(OUTCOMES).where(OUTCOMES.c.episode_id == episode_id).order_by(OUTCOMES.c.seq)
        )
        return EpisodeDetail(
            episode=EpisodeSummary.model_validate(rows[0]),
            tool_calls=[
                ToolCallView.model_validate({**c, "arguments": json.loads(c["arguments"])}) for c in calls
            ],
            outcomes=[
                OutcomeView.model_validate({**o, "reason_codes": json.loads(o["reason_codes"])})
                for o in outcomes
            ],
        )

    def episode_events(self, episode_id: str, *, tenant: str | None = None) -> list[StoredEvent]:
        """Every archived event of a stream in `seq` order (forks included, in arrival order)."""
        a = ARCHIVE_TABLE
        query = _scoped(sa.select(a).where(a.c.episodeid == episode_id), a, tenant).order_by(
            a.c.seq, a.c.position
        )
        return [
            StoredEvent.model_validate({**row, "structured": json.loads(row["structured"])})
            for row in self._all(query)
        ]

    def list_edge_cases(
        self,
        *,
        tenant: str | None = None,
        rule: str | None = None,
        since: datetime | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[EdgeCaseView]:
        """Distinct edge cases, most recently seen first."""
        limit, offset = _page(limit, offset)
        query = _scoped(sa.select(EDGE_CASES), EDGE_CASES, tenant)
        if rule is not None:
            query = query.where(EDGE_CASES.c.rule == rule)
        if since is not None:
            query = query.where(EDGE_CASES.c.last_seen >= since)
        query = (
            query.order_by(EDGE_CASES.c.last_seen.desc(), EDGE_CASES.c.fingerprint)
            .limit(limit)
            .offset(offset)
        )
        return [_edge_case(row) for row in self._all(query)]

    def get_edge_case(self, fingerprint: str, *, tenant: str | None = None) -> EdgeCaseView | None:
        """One edge case by fingerprint."""
        rows = self._all(
            _scoped(sa.select(EDGE_CASES).where(EDGE_CASES.c.fingerprint == fingerprint), EDGE_CASES, tenant)
        )
        return _edge_case(rows[0]) if rows else None

    def tool_error_rates(self) -> list[ToolErrorRate]:
        """Per-tool call, failure and unknown counts, by tool name."""
        return [
            ToolErrorRate.model_validate(row)
            for row in self._all(sa.select(TOOL_RATES).order_by(TOOL_RATES.c.tool))
        ]


def _edge_case(row: Any) -> EdgeCaseView:
    return EdgeCaseView.model_validate({**row, "evidence": json.loads(row["evidence"])})
