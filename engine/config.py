"""What an episode may do (`EpisodeConfig`), how it went (`EpisodeResult`), and the clock and id
ports the engine reads time and ids from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from adapters.chat import DEFAULT_SYSTEM_PROMPT
from engine.policy import Turn
from engine.reply import Message
from schemas.events import EpisodeStatus, Escalated

Clock = Callable[[], float]
"""Monotonic seconds: drives budgets, latencies and durations (inject one for reproducible runs)."""
IdFactory = Callable[[], str]
"""Makes episode ids and ids for tool calls a policy left without one."""


@dataclass(frozen=True)
class EpisodeConfig:
    """Budgets and how replies are read. The domain's part (escalate and terminal tools) is its
    `EpisodeRules`."""

    max_steps: int = 16
    """Model turns allowed, invalid replies included (each one cost a request)."""
    max_tool_calls: int | None = None
    """Tool calls allowed; the call that reaches it ends the episode as `budget_exhausted`
    unless it ended it otherwise. None: only the turn and time budgets bound calls."""
    max_seconds: float = 300.0
    """Wall time allowed, checked before every model turn and every tool call."""
    max_invalid_replies: int = 3
    """Unusable replies in a row before the engine gives the episode to a human."""
    require_tool_call: bool = False
    """True: a text-only reply is invalid, so episodes end only by a terminal or escalate tool.
    False: a text-only reply is the agent's closing message and completes the episode."""
    builtin_escalate: bool = True
    """Offer the engine's own escalate tool when the toolbox lacks the rules' escalate tool."""
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    """Template with `{domain}`, `{kind}` and `{escalate_tool}` placeholders."""
    snapshot_world: bool = True
    """Record the backend's world snapshot and final world hash when it can give them."""

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if self.max_tool_calls is not None and self.max_tool_calls < 1:
            raise ValueError("max_tool_calls must be at least 1")
        if not self.max_seconds > 0:
            raise ValueError("max_seconds must be positive")
        if self.max_invalid_replies < 1:
            raise ValueError("max_invalid_replies must be at least 1")


@dataclass(frozen=True)
class EpisodeResult:
    """The outcome of one episode; the events are the full record, this is the summary."""

    episode_id: str
    status: EpisodeStatus
    steps: int
    """Model turns taken."""
    tool_calls: int
    """Tool calls made (calls refused by a budget are recorded but not counted)."""
    escalation: Escalated | None
    """The hand-off to a human, if there was one."""
    final_message: str | None
    duration_ms: float
    invalid_replies: int = 0
    """Unusable model replies, in all."""
    unknown_outcomes: int = 0
    """Tool calls whose effect is unknown (e.g. a write that timed out): a human should check."""
    error: str | None = None
    """Why the episode failed, when it did."""
    messages: tuple[Message, ...] = ()
    """The conversation as the policy last saw it."""
    turns: tuple[Turn, ...] = ()
    """Every call that ran and its result, in order (what a verifier scores)."""
    world_hash: str | None = None
    """Hash of the final world, when the backend can give one."""
