"""What an episode may do (`RunnerConfig`) and how it went (`EpisodeResult`)."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.runtime.policy import Message
from bridge.runtime.prompt import DEFAULT_SYSTEM_PROMPT
from bridge.runtime.recorder import EpisodeStatus
from schemas.events import Escalated


@dataclass(frozen=True)
class RunnerConfig:
    """Budgets and the episode's rules of engagement."""

    max_steps: int = 16
    """Model turns allowed, invalid replies included (each one cost a request)."""
    max_seconds: float = 300.0
    """Wall time allowed, checked before every model turn and every tool call."""
    max_invalid_replies: int = 3
    """Unusable replies in a row before the runtime gives the episode to a human."""
    escalate_tool: str = "escalate"
    """Tool name that hands the episode to a human (rcm: `escalate_to_human`). When the toolbox
    has no tool of that name, the runtime offers a built-in one and handles it itself."""
    terminal_tools: frozenset[str] = frozenset()
    """Tools whose successful call completes the episode (e.g. submitting an appeal)."""
    require_tool_call: bool = False
    """True: a text-only reply is invalid, so episodes end only by a terminal or escalate tool.
    False: a text-only reply is the agent's closing message and completes the episode."""
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    """Template with `{domain}`, `{kind}` and `{escalate_tool}` placeholders."""
    snapshot_world: bool = True
    """Record the backend's world snapshot and final world hash when it can give them."""

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if not self.max_seconds > 0:
            raise ValueError("max_seconds must be positive")
        if self.max_invalid_replies < 1:
            raise ValueError("max_invalid_replies must be at least 1")
        if self.escalate_tool in self.terminal_tools:
            raise ValueError(f"{self.escalate_tool!r} cannot be both the escalate tool and a terminal tool")


@dataclass(frozen=True)
class EpisodeResult:
    """The outcome of one episode; the events are the full record, this is the summary."""

    episode_id: str
    status: EpisodeStatus
    steps: int
    """Model turns taken."""
    tool_calls: int
    """Tool calls made (calls refused by the budget are recorded but not counted)."""
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
