"""Small builders shared by the envs tests."""

from __future__ import annotations

from schemas.tools import ToolCall


def call(name: str, call_id: str = "c", **arguments: object) -> ToolCall:
    """A tool call in one line."""
    return ToolCall(call_id=call_id, name=name, arguments=dict(arguments))
