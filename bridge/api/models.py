"""Request and response bodies of the bridge HTTP API."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.base import PRINTABLE
from schemas.tasks import WorkItem

Id = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class StartEpisode(Body):
    """Run the deployed policy on one work item."""

    work_item: WorkItem
    """The item to work."""
    wait: bool = True
    """Wait for the episode to end (200 with the result) or return at once (202)."""


class EpisodeRun(Body):
    """How an episode run by the bridge went (the events hold the full record)."""

    episode_id: str
    status: Literal["running", "completed", "escalated", "budget_exhausted", "failed", "aborted"]
    steps: int = 0
    tool_calls: int = 0
    escalated: bool = False
    escalation_reason: str | None = None
    final_message: str | None = None
    error: str | None = None


class OpenGatewayEpisode(Body):
    """Open an episode for an external agent framework that sends its tool calls through the bridge."""

    work_item: WorkItem
    """The item the external agent works."""
    model: str = Field(default="external", min_length=1, max_length=128)
    """The external agent's model name, recorded as the policy."""
    max_steps: int = Field(default=64, ge=1, le=10_000)
    """Tool calls allowed before the gateway refuses more."""


class GatewayEpisode(Body):
    episode_id: str
    tools: list[dict[str, Any]]
    """The tools, in OpenAI `tools` format."""


class GatewayToolCall(Body):
    """One tool call from the external agent."""

    name: str = Field(min_length=1, max_length=128, pattern=PRINTABLE)
    """Tool name."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Arguments as JSON."""
    call_id: str | None = Field(default=None, min_length=1, max_length=128)
    """The agent's id for the call; one is made when absent."""


class GatewayEscalation(Body):
    reason: str = Field(min_length=1, max_length=4000)
    recommendation: str | None = Field(default=None, max_length=4000)
    queue: str | None = Field(default=None, max_length=128)


class CloseGatewayEpisode(Body):
    status: Literal["completed", "escalated", "failed", "aborted"] = "completed"
    final_message: str | None = Field(default=None, max_length=20_000)


class ObservedOutcome(Body):
    """A later business fact about an episode's work item (webhook from the billing system)."""

    episode_id: str = Id
    """The episode whose work item this is about."""
    kind: str = Field(min_length=1, max_length=64)
    """`paid`, `denied`, `appeal_won`, ..."""
    item_id: str = Field(min_length=1, max_length=128, pattern=PRINTABLE)
    """The work item's id in the business system."""
    observed_at: datetime
    """When the business system recorded it (timezone-aware)."""
    amount: Decimal | None = Field(default=None, max_digits=14, decimal_places=2)
    """Money involved."""
    reason_codes: list[str] = Field(default_factory=list, max_length=50)
    """Codes given with it (e.g. the CARCs of a new denial)."""
    external_ref: str | None = Field(default=None, max_length=256)
    """The business system's reference."""


class Recorded(Body):
    event_id: str
    seq: int


class RejectedEvent(Body):
    """An event the relay gave up on for good: kept in this bridge's outbox, never shipped."""

    event_id: str
    episode_id: str
    seq: int
    size_bytes: int
    """Size of its stored JSON."""
    reason: str
    """Why it can never be produced (too large for the broker, unreadable)."""
    rejected_at: datetime
    """When the relay gave up on it."""


class Revealed(Body):
    token: str
    value: str
