"""A whole episode with PHI in every place PHI can be, recorded through the public recorder API."""

from __future__ import annotations

from bridge.recording import EpisodeRecorder
from schemas import Event, SideEffect, ToolCall, ToolError, ToolOutcome, ToolResult, WorkItem
from schemas.events import ModelResponded, PolicyRef
from tests.bridge.phi.phi_models import ClaimPayload, LookupArgs, LookupResult, claim_payload

ARGS_MODELS = {"lookup_claim": LookupArgs}


def work_item() -> WorkItem:
    return WorkItem(
        domain="rcm", kind="denial", item_id="CLM-1", instructions="Appeal it.", payload=claim_payload()
    )


def lookup_call(n: int) -> ToolCall:
    return ToolCall(
        call_id=f"call-{n}", name="lookup_claim", arguments={"claim_id": "CLM-1", "member_id": "MBR-0042"}
    )


def lookup_result(n: int) -> ToolResult:
    result = {"claim_id": "CLM-1", "status": "denied", "patient_name": "Ada Lovelace", "ssn_last4": "123-45"}
    return ToolResult(
        call_id=f"call-{n}", name="lookup_claim", outcome=ToolOutcome.OK, result=result, latency_ms=3.0
    )


def record_episode(recorder: EpisodeRecorder, *, calls: int = 2) -> list[Event]:
    """started, then per call: model turn, tool.called, tool.returned; a failure; escalation; end."""
    events = [
        recorder.started(
            work_item(),
            payload_model=ClaimPayload,
            policy=PolicyRef(model="toy-policy"),
            tools=["lookup_claim"],
            tools_hash="tools-hash",
            system_prompt_hash="prompt-hash",
            max_steps=20,
            max_seconds=60.0,
        )
    ]
    for n in range(calls):
        call = lookup_call(n)
        events.append(recorder.model_responded(ModelResponded(turn=n, tool_calls=(call,))))
        events.append(recorder.tool_called(call, SideEffect.READ, LookupArgs))
        events.append(recorder.tool_returned(lookup_result(n), LookupResult))
    failure = ToolResult(
        call_id="call-x",
        name="lookup_claim",
        outcome=ToolOutcome.UNKNOWN,
        error=ToolError(kind="timeout", message="no answer", details={"member_id": "MBR-0042"}),
    )
    events.append(recorder.tool_failed(failure, attempts=2))
    events.append(recorder.escalated("payer portal down", trigger="runtime", queue="supervisor"))
    events.append(recorder.human_intervened("u-7", "supervisor", "annotate", payload={"member": "MBR-0077"}))
    events.append(recorder.ended("escalated", steps=calls, tool_calls=calls + 1, duration_ms=12.5))
    return events
