"""The credit desk: numbered calls for the analyst's scripts (`envs.script`)."""

from __future__ import annotations

from functools import partial
from typing import Any

from envs.script import Script, replay_script
from schemas.tools import ToolCall, ToolOutcome

__all__ = ["DONE", "Desk", "Script", "next_action"]


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


DONE = "package worked"
next_action = partial(replay_script, done=DONE)
"""(script, turns) → the next call; `Finish` once the package is worked."""
