"""Projection changes: what the reducers emit and the SQL layer applies.

Each op kind is one fixed SQL statement shape. Ops are applied in stages (`STAGES`), each stage one
`executemany` in event order. The stage order follows an episode's life (started, counted, calls
opened then closed, escalated, ended, outcomes), and the counters are plain sums, so the result does
not depend on how events were cut into batches: a projector fed in batches of 500 and a rebuild in
batches of 5,000 reach the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class EpisodeOpened:
    """An episode started: who works which item."""

    episode_id: str
    tenant: str
    work_item_id: str
    work_item_kind: str
    work_item_domain: str
    task_id: str | None
    policy_model: str
    policy_adapter_id: str | None
    policy_route: str
    started_at: datetime


@dataclass(frozen=True)
class EpisodeCounted:
    """Counters of an episode moved (summed within a batch)."""

    episode_id: str
    tenant: str
    steps: int = 0
    tool_calls: int = 0
    human_actions: int = 0


@dataclass(frozen=True)
class ToolCallOpened:
    """A tool call was made."""

    episode_id: str
    call_id: str
    tenant: str
    tool: str
    arguments: str
    side_effect: str | None
    called_at: datetime
    called_seq: int


@dataclass(frozen=True)
class ToolCallClosed:
    """A tool call returned or failed."""

    episode_id: str
    call_id: str
    tenant: str
    tool: str
    outcome: str
    error_kind: str | None
    error_message: str | None
    http_status: int | None
    latency_ms: float
    attempts: int
    finished_at: datetime


@dataclass(frozen=True)
class ToolRateCounted:
    """Per-tool counters moved (summed within a batch)."""

    tool: str
    calls: int = 0
    failures: int = 0
    unknown: int = 0


@dataclass(frozen=True)
class EpisodeEscalated:
    """The episode was handed to a human."""

    episode_id: str
    tenant: str
    escalation_reason: str


@dataclass(frozen=True)
class EpisodeClosed:
    """The episode ended."""

    episode_id: str
    tenant: str
    status: str
    ended_at: datetime
    duration_ms: float | None


@dataclass(frozen=True)
class OutcomeRecorded:
    """A business outcome was observed for the episode's work item."""

    event_id: str
    source: str
    episode_id: str
    tenant: str
    seq: int
    item_id: str
    kind: str
    amount: str | None
    reason_codes: str
    observed_at: datetime


@dataclass(frozen=True)
class EdgeCaseRecorded:
    """An `edge_case.detected` event: seq `seq` of the `edgecase:<fingerprint>` stream."""

    fingerprint: str
    rule: str
    severity: str
    summary: str
    tenant: str
    episode_id: str
    seen_at: datetime
    seq: int
    event_id: str
    hash: str
    evidence: str


ProjectionOp = (
    EpisodeOpened
    | EpisodeCounted
    | ToolCallOpened
    | ToolCallClosed
    | ToolRateCounted
    | EpisodeEscalated
    | EpisodeClosed
    | OutcomeRecorded
    | EdgeCaseRecorded
)

STAGES: tuple[type[Any], ...] = (
    EpisodeOpened,
    EpisodeCounted,
    ToolCallOpened,
    ToolCallClosed,
    ToolRateCounted,
    EpisodeEscalated,
    EpisodeClosed,
    OutcomeRecorded,
    EdgeCaseRecorded,
)
"""Application order of the op kinds."""


def plan(ops: Iterable[ProjectionOp]) -> list[tuple[type[Any], list[ProjectionOp]]]:
    """Group `ops` into stages, summing counters per key; event order is kept within a stage."""
    by_kind: dict[type[Any], list[ProjectionOp]] = {kind: [] for kind in STAGES}
    episode_sums: dict[str, EpisodeCounted] = {}
    tool_sums: dict[str, ToolRateCounted] = {}
    for op in ops:
        if isinstance(op, EpisodeCounted):
            seen = episode_sums.get(op.episode_id)
            episode_sums[op.episode_id] = op if seen is None else _add_episode(seen, op)
        elif isinstance(op, ToolRateCounted):
            prior = tool_sums.get(op.tool)
            tool_sums[op.tool] = op if prior is None else _add_tool(prior, op)
        else:
            by_kind[type(op)].append(op)
    by_kind[EpisodeCounted] = list(episode_sums.values())
    by_kind[ToolRateCounted] = list(tool_sums.values())
    return [(kind, by_kind[kind]) for kind in STAGES if by_kind[kind]]


def _add_episode(a: EpisodeCounted, b: EpisodeCounted) -> EpisodeCounted:
    return replace(
        a,
        steps=a.steps + b.steps,
        tool_calls=a.tool_calls + b.tool_calls,
        human_actions=a.human_actions + b.human_actions,
    )


def _add_tool(a: ToolRateCounted, b: ToolRateCounted) -> ToolRateCounted:
    return replace(
        a, calls=a.calls + b.calls, failures=a.failures + b.failures, unknown=a.unknown + b.unknown
    )
