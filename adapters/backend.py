"""The `ToolBackend` port and the typed failure every backend raises."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from schemas.tools import ToolError, ToolOutcome


class ToolFailure(Exception):
    """A tool call that did not produce a result; carries the typed error and the outcome.

    `outcome` is `unknown` when a write may have taken effect (a timeout after sending), never
    rounded to failed.
    """

    def __init__(
        self, error: ToolError, *, outcome: ToolOutcome = ToolOutcome.FAILED, attempts: int = 1
    ) -> None:
        super().__init__(error.message)
        self.error = error
        self.outcome = outcome
        self.attempts = attempts


class ToolBackend(Protocol):
    """Executes validated tool calls against a world: simulated or live."""

    def invoke(self, tool: str, args: BaseModel) -> BaseModel:
        """Run `tool` with validated `args`; return the result model or raise `ToolFailure`."""
        ...


class SnapshottingBackend(ToolBackend, Protocol):
    """A backend whose world state can be captured and restored (sim, sandbox)."""

    def snapshot(self) -> dict[str, Any]:
        """The current world state as JSON."""
        ...

    def restore(self, state: dict[str, Any]) -> None:
        """Replace the world state."""
        ...
