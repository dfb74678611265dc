"""The engine itself: budget endings, escalation read through the domain's rules, a crash closes the
record, plans see typed turns, and the gateway's stepping API."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine import (
    DomainRules,
    EpisodeConfig,
    EpisodeSession,
    EpisodeView,
    EscalationFields,
    Finish,
    MemoryRecorder,
    Message,
    PlanPolicy,
    Policy,
    PolicyReply,
    ScriptedPolicy,
    Turn,
    act,
    call,
    run_episode,
)
from engine.session import EpisodeEnded
from schemas import ToolCall, ToolOutcome, WorkItem, verify_chain
from schemas.events import EpisodeEnded as Ended
from schemas.events import Escalated, PolicyRef, SamplingParams, ToolFailed
from tests.bridge.runtime.toy_tools import toy_toolbox

ITEM = WorkItem(
    domain="rcm", kind="denial", item_id="C-1", instructions="Work it.", payload={"claim_id": "C-1"}
)
LOOKUP = call("lookup_claim", {"claim_id": "C-1"})


def _rules(read: Any = None) -> DomainRules:
    return DomainRules("escalate_to_human", read or (lambda args: EscalationFields(str(args["reason"]))))


def _session(config: EpisodeConfig | None = None, rules: DomainRules | None = None) -> EpisodeSession:
    session = EpisodeSession(
        ITEM, toolbox=toy_toolbox(), recorder=MemoryRecorder("ep-1"), rules=rules or _rules(), config=config
    )
    session.start(PolicyRef(model="test", route="scripted"))
    return session


def _types(session: EpisodeSession) -> list[str]:
    recorder = session.recorder
    assert isinstance(recorder, MemoryRecorder)
    assert verify_chain(recorder.events) is None
    return [re.sub(r"\.v\d+$", "", e.type.removeprefix("loopline.")) for e in recorder.events]


def test_the_call_that_reaches_the_tool_call_budget_ends_the_episode_and_the_rest_are_refused() -> None:
    session = _session(EpisodeConfig(max_tool_calls=2))
    result = run_episode(ScriptedPolicy([act(LOOKUP, LOOKUP, LOOKUP)]), session)
    assert (result.status, result.tool_calls, result.steps) == ("budget_exhausted", 2, 1)
    assert _types(session)[-4:] == ["tool.called", "tool.failed", "escalated", "episode.ended"]
    assert result.escalation is not None and result.escalation.trigger == "budget"


def test_an_escalate_call_is_read_by_the_domains_rules_alone() -> None:
    def read(arguments: Mapping[str, Any]) -> EscalationFields:
        return EscalationFields(f"read by the rules: {arguments['reason']}", "the rules' pick", "rules-queue")

    session = _session(rules=_rules(read))
    escalate = call(
        "escalate_to_human", {"reason": "over the limit", "recommendation": "ignored", "queue": "x"}
    )
    result = run_episode(ScriptedPolicy([act(escalate)]), session)
    assert result.status == "escalated"
    assert result.escalation == Escalated(
        reason="read by the rules: over the limit",
        trigger="policy",
        recommendation="the rules' pick",
        queue="rules-queue",
    )


def test_a_terminal_tool_of_the_rules_completes_the_episode() -> None:
    rules = DomainRules("escalate_to_human", lambda args: EscalationFields("-"), frozenset({"lookup_claim"}))
    result = run_episode(ScriptedPolicy([act(LOOKUP)]), _session(rules=rules))
    assert (result.status, result.steps, result.tool_calls) == ("completed", 1, 1)


class Crashing:
    ref = PolicyRef(model="crashing", route="scripted")
    sampling = SamplingParams()

    def complete(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]], view: EpisodeView | None = None
    ) -> PolicyReply:
        raise KeyError("a bug")


def test_a_crash_closes_the_record_then_propagates() -> None:
    session = _session()
    policy: Policy = Crashing()
    with pytest.raises(KeyError, match="a bug"):
        run_episode(policy, session)
    assert _types(session) == ["episode.started", "escalated", "episode.ended"]
    assert session.result is not None and session.result.status == "failed"
    assert session.escalation is not None and session.escalation.trigger == "runtime"


def test_a_plan_sees_every_call_and_its_result_as_typed_turns() -> None:
    seen: list[tuple[Turn, ...]] = []

    def plan(item: WorkItem, turns: tuple[Turn, ...]) -> ToolCall | Finish:
        seen.append(turns)
        if not turns:
            return ToolCall(call_id="c1", name="lookup_claim", arguments={"claim_id": item.item_id})
        return Finish(message=f"looked up {turns[0].result.outcome.value}")

    result = run_episode(PlanPolicy("planner", plan), _session())
    assert result.status == "completed" and result.final_message == "looked up ok"
    assert [len(t) for t in seen] == [0, 1] and seen[1][0].call.call_id == "c1"
    assert seen[1][0].result.outcome is ToolOutcome.OK


def test_a_plan_that_cannot_read_the_item_asks_for_a_human_when_told_to() -> None:
    def plan(item: WorkItem, turns: tuple[Turn, ...]) -> Finish:
        raise KeyError("worked_on")

    result = run_episode(PlanPolicy("planner", plan, cannot_plan=(KeyError,)), _session())
    assert result.status == "escalated" and result.escalation is not None
    assert "payload.worked_on" in result.escalation.reason


def test_the_gateway_steps_one_call_at_a_time_within_the_budget_and_ends_once() -> None:
    session = EpisodeSession(
        ITEM,
        toolbox=toy_toolbox(),
        recorder=MemoryRecorder("gw-1"),
        rules=None,
        config=EpisodeConfig(max_tool_calls=1, snapshot_world=False),
    )
    session.start(PolicyRef(model="external"), system_prompt_hash="external")
    assert session.step(
        ToolCall(call_id="a", name="lookup_claim", arguments={"claim_id": "C-1"})
    ).outcome is (ToolOutcome.OK)
    refused = session.step(ToolCall(call_id="b", name="lookup_claim", arguments={"claim_id": "C-1"}))
    assert refused.error is not None and refused.error.kind == "budget"
    session.escalate("the agent asked", "policy")
    result = session.end("escalated", final="handed over")
    assert (result.steps, result.tool_calls, result.world_hash) == (1, 1, None)
    with pytest.raises(EpisodeEnded):
        session.step(ToolCall(call_id="c", name="lookup_claim", arguments={"claim_id": "C-1"}))
    types = _types(session)
    assert types == [
        "episode.started",
        "tool.called",
        "tool.returned",
        "tool.called",
        "tool.failed",
        "escalated",
        "episode.ended",
    ]
    recorder = session.recorder
    assert isinstance(recorder, MemoryRecorder) and isinstance(recorder.events[4].data, ToolFailed)
    assert isinstance(recorder.events[-1].data, Ended) and recorder.events[-1].data.status == "escalated"
