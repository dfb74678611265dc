"""Scripts as stateless policies: a generator yields tool calls and receives their results, and is
replayed from the start over the turns so far on every step (same item, same results, same calls)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from envs.contract import Action, Finish, Turn
from schemas.tools import ToolCall, ToolOutcome, ToolResult

Script = Generator[ToolCall, ToolResult, Any]
"""Yields calls, receives results, returns whatever it found."""


class Desk:
    """Numbers the calls of one working session."""

    def __init__(self) -> None:
        self._count = 0

    def call(self, name: str, **arguments: Any) -> ToolCall:
        self._count += 1
        return ToolCall(call_id=f"call-{self._count}", name=name, arguments=arguments)

    def read(self, name: str, **arguments: Any) -> Script:
        """One read; its result, or None when it failed."""
        result = yield self.call(name, **arguments)
        return result.result if result.outcome is ToolOutcome.OK else None


def next_action(script: Script, turns: tuple[Turn, ...], done: str = "package worked") -> Action:
    """Replay a fresh script over the turns so far and return its next call (or `Finish`)."""
    try:
        call = next(script)
        for turn in turns:
            if turn.call != call:
                return Finish(message="the episode diverged from my plan; stopping")
            call = script.send(turn.result)
    except StopIteration:
        return Finish(message=done)
    return call
