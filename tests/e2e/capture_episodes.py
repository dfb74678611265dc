"""Small episodes recorded through a real `CaptureService`: the e2e tests' traffic."""

from __future__ import annotations

from bridge.capture import CaptureService
from schemas import ToolCall, ToolOutcome, ToolResult, WorkItem
from schemas.events import PolicyRef
from schemas.tools import SideEffect

EVENTS_PER_EPISODE = 4
"""started, tool called, tool returned, ended."""


def record_episodes(capture: CaptureService, n: int) -> None:
    """Record `n` one-call episodes (a `get_claim` that answers) through `capture`."""
    item = WorkItem(domain="rcm", kind="denial", item_id="CLM-1", instructions="Work it.")
    call = ToolCall(call_id="c0", name="get_claim", arguments={"claim_id": "CLM-1"})
    result = ToolResult(call_id="c0", name="get_claim", outcome=ToolOutcome.OK, result={"status": "denied"})
    for _ in range(n):
        recorder = capture.recorder()
        recorder.started(
            item, payload_model=None, policy=PolicyRef(model="scripted"), tools=["get_claim"], tools_hash="t",
            system_prompt_hash="p", max_steps=4, max_seconds=5.0,
        )  # fmt: skip
        recorder.tool_called(call, SideEffect.READ, None)
        recorder.tool_returned(result, None)
        recorder.ended("completed", steps=1, tool_calls=1, duration_ms=1.0)
