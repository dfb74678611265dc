"""Apply projection ops to SQL: one statement shape per op kind, run as `executemany` per stage.

Every statement is an upsert (`INSERT ... ON CONFLICT`), so an op never depends on an earlier op
having created its row: a stream that lost its `episode.started` still projects its tool calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa

from bridge.store.engine import insert_for
from bridge.store.ops import (
    EdgeCaseRecorded,
    EpisodeClosed,
    EpisodeCounted,
    EpisodeEscalated,
    EpisodeOpened,
    OutcomeRecorded,
    ProjectionOp,
    ToolCallClosed,
    ToolCallOpened,
    ToolRateCounted,
    plan,
)
from bridge.store.tables import EDGE_CASES, EPISODES, OUTCOMES, TOOL_CALLS, TOOL_RATES

Handler = Callable[[sa.Connection, list[Any]], list[ProjectionOp]]


def apply_ops(conn: sa.Connection, ops: Iterable[ProjectionOp]) -> list[ProjectionOp]:
    """Apply `ops` in stage order inside the caller's transaction; returns the ops refused.

    Only edge-case ops can be refused: one whose `seq` is not its stream's next (a fork), which
    the archive keeps and `loopline audit verify` reports.
    """
    refused: list[ProjectionOp] = []
    for kind, group in plan(ops):
        refused.extend(_HANDLERS[kind](conn, group))
    return refused


def _rows(ops: list[Any]) -> list[dict[str, Any]]:
    return [dict(vars(op)) for op in ops]


def _upsert(
    conn: sa.Connection, table: sa.Table, keys: list[str], rows: list[dict[str, Any]], set_: Any
) -> None:
    stmt = insert_for(conn, table)
    conn.execute(stmt.on_conflict_do_update(index_elements=keys, set_=set_(table, stmt.excluded)), rows)


def _episode_opened(conn: sa.Connection, ops: list[EpisodeOpened]) -> list[ProjectionOp]:
    rows = [{**row, "status": "running"} for row in _rows(ops)]
    fields = [name for name in rows[0] if name not in ("episode_id", "status")]

    def set_(t: sa.Table, ex: Any) -> dict[str, Any]:
        # An episode that already ended keeps its status; one seen before its start gets `running`.
        return {**{f: ex[f] for f in fields}, "status": sa.func.coalesce(t.c.status, ex.status)}

    _upsert(conn, EPISODES, ["episode_id"], rows, set_)
    return []


def _episode_counted(conn: sa.Connection, ops: list[EpisodeCounted]) -> list[ProjectionOp]:
    counters = ("steps", "tool_calls", "human_actions")
    _upsert(conn, EPISODES, ["episode_id"], _rows(ops), lambda t, ex: {c: t.c[c] + ex[c] for c in counters})
    return []


def _tool_call_opened(conn: sa.Connection, ops: list[ToolCallOpened]) -> list[ProjectionOp]:
    fields = ("tool", "arguments", "side_effect", "called_at", "called_seq")
    _upsert(conn, TOOL_CALLS, ["episode_id", "call_id"], _rows(ops), lambda t, ex: {f: ex[f] for f in fields})
    return []


def _tool_call_closed(conn: sa.Connection, ops: list[ToolCallClosed]) -> list[ProjectionOp]:
    fields = (
        "outcome",
        "error_kind",
        "error_message",
        "http_status",
        "latency_ms",
        "attempts",
        "finished_at",
    )
    _upsert(conn, TOOL_CALLS, ["episode_id", "call_id"], _rows(ops), lambda t, ex: {f: ex[f] for f in fields})
    return []


def _tool_rate_counted(conn: sa.Connection, ops: list[ToolRateCounted]) -> list[ProjectionOp]:
    counters = ("calls", "failures", "unknown")
    _upsert(conn, TOOL_RATES, ["tool"], _rows(ops), lambda t, ex: {c: t.c[c] + ex[c] for c in counters})
    return []


def _episode_escalated(conn: sa.Connection, ops: list[EpisodeEscalated]) -> list[ProjectionOp]:
    rows = [{**row, "escalated": True} for row in _rows(ops)]
    _upsert(
        conn,
        EPISODES,
        ["episode_id"],
        rows,
        lambda t, ex: {"escalated": True, "escalation_reason": ex.escalation_reason},
    )
    return []


def _episode_closed(conn: sa.Connection, ops: list[EpisodeClosed]) -> list[ProjectionOp]:
    fields = ("status", "ended_at", "duration_ms")
    _upsert(conn, EPISODES, ["episode_id"], _rows(ops), lambda t, ex: {f: ex[f] for f in fields})
    return []


def _outcome_recorded(conn: sa.Connection, ops: list[OutcomeRecorded]) -> list[ProjectionOp]:
    conn.execute(insert_for(conn, OUTCOMES).on_conflict_do_nothing(), _rows(ops))
    latest = (
        sa.update(EPISODES)
        .where(EPISODES.c.episode_id == sa.bindparam("e_id"))
        .values(latest_outcome=sa.bindparam("e_kind"), latest_outcome_at=sa.bindparam("e_at"))
    )
    conn.execute(latest, [{"e_id": op.episode_id, "e_kind": op.kind, "e_at": op.observed_at} for op in ops])
    return []


def _edge_case_recorded(conn: sa.Connection, ops: list[EdgeCaseRecorded]) -> list[ProjectionOp]:
    refused: list[ProjectionOp] = []
    for op in ops:  # one by one: each needs its own rowcount, and edge cases are rare
        row = {
            "fingerprint": op.fingerprint,
            "rule": op.rule,
            "severity": op.severity,
            "summary": op.summary,
            "tenant": op.tenant,
            "episode_id": op.episode_id,
            "last_episode_id": op.episode_id,
            "first_seen": op.seen_at,
            "last_seen": op.seen_at,
            "count": op.seq + 1,
            "last_event_id": op.event_id,
            "last_hash": op.hash,
            "evidence": op.evidence,
        }
        stmt = insert_for(conn, EDGE_CASES)
        ex, t = stmt.excluded, EDGE_CASES
        updated = (
            "severity",
            "summary",
            "last_episode_id",
            "last_seen",
            "count",
            "last_event_id",
            "last_hash",
            "evidence",
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=["fingerprint"],
            set_={name: ex[name] for name in updated},
            # Only the stream's next event moves the tip; a second event with the same seq is a fork.
            where=t.c["count"] == ex["count"] - 1,
        )
        # RETURNING, not rowcount: psycopg reports -1 for an upsert whose WHERE refused the update.
        if conn.execute(stmt.returning(t.c.fingerprint), row).first() is None:
            refused.append(op)
    return refused


_HANDLERS: dict[type[Any], Handler] = {
    EpisodeOpened: _episode_opened,
    EpisodeCounted: _episode_counted,
    ToolCallOpened: _tool_call_opened,
    ToolCallClosed: _tool_call_closed,
    ToolRateCounted: _tool_rate_counted,
    EpisodeEscalated: _episode_escalated,
    EpisodeClosed: _episode_closed,
    OutcomeRecorded: _outcome_recorded,
    EdgeCaseRecorded: _edge_case_recorded,
}
