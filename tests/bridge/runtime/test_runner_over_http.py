"""A whole episode against a real OpenAI-compatible server and live tools, recorded step by step."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from adapters import Toolbox
from bridge.runtime import EpisodeRunner, OpenAIChatPolicy, RetryPolicy
from engine import EpisodeConfig, EpisodeRules, builtin_rules
from schemas import ToolOutcome, WorkItem, verify_chain
from schemas.events import EpisodeStarted, Escalated, ModelResponded, ToolCalled, ToolFailed, ToolReturned
from tests.bridge.runtime.captured import CapturedEpisodes
from tests.bridge.runtime.doubles import FakeClock, SequentialIds
from tests.bridge.runtime.fake_openai_server import (
    FakeOpenAIServer,
    completion,
    server_error,
    text_reply,
    tool_call_reply,
    tool_calls_reply,
)
from tests.bridge.runtime.toy_tools import DenialPayload, ToyBackend

pytestmark = pytest.mark.integration

CONFIG = EpisodeConfig(max_steps=8, max_seconds=60.0)
RULES = builtin_rules("escalate_to_human")


def run(
    server: FakeOpenAIServer,
    toolbox: Toolbox,
    recorders: CapturedEpisodes,
    work_item: WorkItem,
    config: EpisodeConfig = CONFIG,
    rules: EpisodeRules = RULES,
) -> Any:
    retry = RetryPolicy(max_attempts=2, base_delay_s=0.001, max_delay_s=0.002)
    with OpenAIChatPolicy(server.url, model="rcm-base", retry=retry, timeout=5.0) as policy:
        runner = EpisodeRunner(
            policy, toolbox, recorders, config, rules=rules, clock=FakeClock(), id_factory=SequentialIds("ep")
        )
        return runner.run(work_item, payload_model=DenialPayload)


def types(recorders: CapturedEpisodes) -> list[str]:
    return [re.sub(r"\.v\d+$", "", event.type.removeprefix("loopline.")) for event in recorders.events]


def test_episode_records_every_step_in_order_with_an_intact_chain(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    openai_server.enqueue(
        tool_call_reply("lookup_claim", {"claim_id": "C-1"}),
        tool_call_reply("write_off", {"claim_id": "C-1", "amount": "120.00", "reason": "CO-45 contractual"}),
        text_reply("Wrote off $120.00 as contractual (CO-45)."),
    )
    result = run(openai_server, toolbox, recorders, work_item)

    assert types(recorders) == [
        "episode.started",
        "model.responded", "tool.called", "tool.returned",
        "model.responded", "tool.called", "tool.returned",
        "model.responded",
        "episode.ended",
    ]  # fmt: skip
    assert [event.seq for event in recorders.events] == list(range(9))
    assert verify_chain(recorders.events) is None
    assert (result.episode_id, result.status, result.steps, result.tool_calls) == (
        "ep-0001",
        "completed",
        3,
        2,
    )
    assert result.final_message == "Wrote off $120.00 as contractual (CO-45)."
    assert result.escalation is None

    started = recorders.events[0].data
    assert isinstance(started, EpisodeStarted) and started.max_steps == 8
    assert (
        started.world_snapshot is not None and started.world_snapshot["claims"]["C-1"]["status"] == "denied"
    )
    ended = recorders.events[-1].data
    assert ended.world_hash is not None  # type: ignore[attr-defined]


def test_tool_results_are_fed_back_to_the_model_as_tool_messages(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    openai_server.enqueue(tool_call_reply("lookup_claim", {"claim_id": "C-1"}), text_reply("done"))
    run(openai_server, toolbox, recorders, work_item)

    first, second = openai_server.requests
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert "C-1" in first["messages"][1]["content"]
    assert {tool["function"]["name"] for tool in first["tools"]} == set(toolbox.names)
    assistant, tool = second["messages"][2:]
    assert assistant["tool_calls"][0]["id"] == "call_0"
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_0"
    body = json.loads(tool["content"])
    assert body["outcome"] == "ok" and body["result"]["carc"] == "45"


def test_the_model_sees_phi_but_the_record_holds_only_tokens(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    openai_server.enqueue(tool_call_reply("lookup_claim", {"claim_id": "C-1"}), text_reply("done"))
    run(openai_server, toolbox, recorders, work_item)

    first, second = openai_server.requests
    assert "Ada Lovelace" in first["messages"][1]["content"]  # the work item, as the agent needs it
    assert "Ada Lovelace" in second["messages"][-1]["content"]  # the tool result, likewise
    started, returned = recorders.events[0].data, recorders.events[3].data
    assert isinstance(started, EpisodeStarted) and isinstance(returned, ToolReturned)
    assert started.work_item.payload["claim_id"] == "C-1"  # not PHI: kept
    for recorded in (started.work_item.payload["patient_name"], returned.result["patient_name"]):
        assert recorded != "Ada Lovelace" and isinstance(recorded, str)
    assert all("Ada Lovelace" not in event.model_dump_json() for event in recorders.events)


def test_invalid_json_arguments_are_recorded_and_answered_with_an_error(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    openai_server.enqueue(
        tool_call_reply("lookup_claim", '{"claim_id": "C-1"'),  # truncated JSON
        tool_call_reply("lookup_claim", {"claim_id": "C-1"}),
        text_reply("done"),
    )
    result = run(openai_server, toolbox, recorders, work_item)

    assert result.status == "completed" and result.invalid_replies == 1
    invalid = recorders.events[1].data
    assert isinstance(invalid, ModelResponded)
    assert invalid.invalid_reason is not None and "not valid JSON" in invalid.invalid_reason
    assert invalid.raw is not None and '{\\"claim_id\\": \\"C-1\\"' in invalid.raw
    assert invalid.tool_calls == ()
    assert types(recorders)[2] == "model.responded"  # nothing was executed for the invalid reply
    feedback = openai_server.requests[1]["messages"][-1]
    assert feedback["role"] == "user" and "not valid JSON" in feedback["content"]


def test_an_unknown_tool_is_an_invalid_reply_not_a_call(
    openai_server: FakeOpenAIServer,
    toolbox: Toolbox,
    toy_backend: ToyBackend,
    recorders: CapturedEpisodes,
    work_item: WorkItem,
) -> None:
    openai_server.enqueue(tool_call_reply("delete_everything", {}), text_reply("done"))
    run(openai_server, toolbox, recorders, work_item)

    invalid = recorders.events[1].data
    assert isinstance(invalid, ModelResponded)
    assert invalid.invalid_reason is not None and "delete_everything" in invalid.invalid_reason
    assert toy_backend.invocations == []
    assert "lookup_claim" in openai_server.requests[1]["messages"][-1]["content"]  # tells it what exists


def test_plain_text_is_invalid_when_a_tool_call_is_required(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    config = EpisodeConfig(max_steps=8, require_tool_call=True)
    rules = builtin_rules("escalate_to_human", frozenset({"write_off"}))
    openai_server.enqueue(
        text_reply("I think we should write it off."),
        tool_call_reply("write_off", {"claim_id": "C-1", "amount": "120.00", "reason": "CO-45"}),
    )
    result = run(openai_server, toolbox, recorders, work_item, config, rules)

    assert (result.status, result.steps, result.invalid_replies) == ("completed", 2, 1)
    invalid = recorders.events[1].data
    assert isinstance(invalid, ModelResponded) and invalid.invalid_reason is not None
    assert "tool call" in invalid.invalid_reason
    assert types(recorders)[-3:] == ["tool.called", "tool.returned", "episode.ended"]


def test_consecutive_invalid_replies_escalate_with_trigger_runtime(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    config = EpisodeConfig(max_steps=8, max_invalid_replies=2)
    openai_server.enqueue(tool_call_reply("lookup_claim", "{oops"), tool_call_reply("nope", {}))
    result = run(openai_server, toolbox, recorders, work_item, config)

    assert types(recorders) == [
        "episode.started", "model.responded", "model.responded", "escalated", "episode.ended"
    ]  # fmt: skip
    assert result.status == "escalated" and result.steps == 2
    assert result.escalation is not None and result.escalation.trigger == "runtime"
    assert "2 invalid replies in a row" in result.escalation.reason


def test_tool_failures_surface_tri_state_to_the_record_and_the_model(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    openai_server.enqueue(
        tool_calls_reply(
            ("lookup_claim", {"claim_id": "C-503"}),
            ("write_off", {"claim_id": "C-TIMEOUT", "amount": "60.00", "reason": "CO-45"}),
            ("lookup_claim", {"claim_id": "C-1"}),
        ),
        text_reply("Payer API is flaky; the write-off may or may not have posted."),
    )
    result = run(openai_server, toolbox, recorders, work_item)

    results = [e.data for e in recorders.events if isinstance(e.data, ToolReturned | ToolFailed)]
    failed, unknown, ok = results
    assert isinstance(failed, ToolFailed) and failed.outcome is ToolOutcome.FAILED
    assert failed.error.kind == "http" and failed.error.status_code == 503
    assert (
        isinstance(unknown, ToolFailed)
        and unknown.outcome is ToolOutcome.UNKNOWN
        and unknown.error.kind == "timeout"
    )
    assert isinstance(ok, ToolReturned)
    assert (result.tool_calls, result.unknown_outcomes) == (3, 1)

    fed_back = [m for m in openai_server.requests[1]["messages"] if m["role"] == "tool"]
    outcomes = [json.loads(m["content"])["outcome"] for m in fed_back]
    assert outcomes == ["failed", "unknown", "ok"]
    assert "may have taken effect" in fed_back[1]["content"]


def test_a_policy_that_gives_up_ends_the_episode_failed_and_escalated(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    openai_server.enqueue(
        tool_call_reply("lookup_claim", {"claim_id": "C-1"}), server_error(503), server_error(503)
    )
    result = run(openai_server, toolbox, recorders, work_item)

    assert types(recorders)[-2:] == ["escalated", "episode.ended"]
    assert result.status == "failed" and result.steps == 1
    assert result.escalation is not None and result.escalation.trigger == "runtime"
    assert result.error is not None and "503" in result.error
    escalated = recorders.events[-2].data
    assert isinstance(escalated, Escalated) and "policy" in escalated.reason
    assert verify_chain(recorders.events) is None


def test_calls_are_recorded_before_they_run_with_their_side_effect(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    openai_server.enqueue(
        tool_call_reply("write_off", {"claim_id": "C-1", "amount": "120.00", "reason": "CO-45"}),
        text_reply("done"),
    )
    run(openai_server, toolbox, recorders, work_item)
    called = recorders.events[2].data
    assert isinstance(called, ToolCalled)
    assert called.side_effect == "write" and called.call.arguments["amount"] == "120.00"


def test_a_call_the_server_sent_without_an_id_gets_one_from_the_id_factory(
    openai_server: FakeOpenAIServer, toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    idless = {"type": "function", "function": {"name": "lookup_claim", "arguments": '{"claim_id": "C-1"}'}}
    openai_server.enqueue(
        completion(
            {"role": "assistant", "content": None, "tool_calls": [idless]}, finish_reason="tool_calls"
        ),
        text_reply("done"),
    )
    run(openai_server, toolbox, recorders, work_item)

    called = recorders.events[2].data
    assert isinstance(called, ToolCalled) and called.call.call_id == "ep-0002"  # ep-0001 is the episode
    assistant, tool = openai_server.requests[1]["messages"][2:]
    assert assistant["tool_calls"][0]["id"] == tool["tool_call_id"] == "ep-0002"
