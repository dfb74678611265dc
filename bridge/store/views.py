"""Read models the store hands out: what the HTTP API and `loopline inspect` show."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


class View(BaseModel):
    """Immutable read model; SQLite hands back naive datetimes, which are UTC by construction."""

    model_config = ConfigDict(frozen=True, from_attributes=True)

    @field_validator("*", mode="before")
    @classmethod
    def _utc(cls, value: Any) -> Any:
        if isinstance(value, datetime) and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class EpisodeSummary(View):
    """One row of the episode list."""

    episode_id: str
    tenant: str
    work_item_id: str | None
    work_item_kind: str | None
    work_item_domain: str | None
    task_id: str | None
    policy_model: str | None
    policy_adapter_id: str | None
    policy_route: str | None
    status: str | None
    steps: int
    tool_calls: int
    human_actions: int
    started_at: datetime | None
    ended_at: datetime | None
    duration_ms: float | None
    escalated: bool
    escalation_reason: str | None
    latest_outcome: str | None
    latest_outcome_at: datetime | None


class ToolCallView(View):
    """One tool call of an episode; `outcome` is None while no result was seen."""

    call_id: str
    tool: str
    arguments: dict[str, Any]
    side_effect: str | None
    called_at: datetime | None
    called_seq: int | None
    outcome: str | None
    error_kind: str | None
    error_message: str | None
    http_status: int | None
    latency_ms: float | None
    attempts: int | None
    finished_at: datetime | None


class OutcomeView(View):
    """A business outcome observed for an episode."""

    event_id: str
    seq: int
    item_id: str
    kind: str
    amount: Decimal | None
    reason_codes: list[str]
    observed_at: datetime


class EpisodeDetail(View):
    """An episode with its tool calls (in call order) and outcomes (in stream order)."""

    episode: EpisodeSummary
    tool_calls: list[ToolCallView]
    outcomes: list[OutcomeView]


class StoredEvent(View):
    """An archived event: the structured JSON as received, and where it came from."""

    position: int
    event_id: str
    source: str
    type: str
    episodeid: str
    seq: int
    tenant: str
    time: datetime
    hash: str
    structured: dict[str, Any]
    kafka_topic: str | None
    kafka_partition: int | None
    kafka_offset: int | None


class EdgeCaseView(View):
    """One distinct edge case."""

    fingerprint: str
    rule: str
    severity: str
    summary: str
    tenant: str
    episode_id: str
    last_episode_id: str
    first_seen: datetime
    last_seen: datetime
    count: int
    last_event_id: str
    evidence: dict[str, Any]


class ToolErrorRate(View):
    """Per tool: calls made, failed and of unknown outcome."""

    tool: str
    calls: int
    failures: int
    unknown: int

    @property
    def failure_rate(self) -> float:
        """Failed or unknown share of calls (0 when none were made)."""
        return (self.failures + self.unknown) / self.calls if self.calls else 0.0
