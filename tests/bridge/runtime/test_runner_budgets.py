"""Budgets, escalation, terminal tools and failure handling of `EpisodeRunner`, driven by a script."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from adapters import Toolbox
from bridge.runtime import EpisodeRunner
from engine import (
    EpisodeConfig,
    EpisodeView,
    Message,
    PolicyReply,
    ScriptedPolicy,
    act,
    ask_human,
    builtin_rules,
    call,
    say,
)
from schemas import WorkItem, verify_chain
from schemas.events import EpisodeStarted, Escalated, PolicyRef, SamplingParams, ToolFailed
from tests.bridge.runtime.captured import CapturedEpisodes
from tests.bridge.runtime.doubles import FakeClock, SequentialIds
from tests.bridge.runtime.toy_tools import DenialPayload, ToyBackend, toy_toolbox

LOOKUP = act(call("lookup_claim", {"claim_id": "C-1"}))
CONFIG = EpisodeConfig(max_steps=5, max_seconds=60.0)
RULES = builtin_rules("escalate_to_human")
APPEAL_ENDS = builtin_rules("escalate_to_human", frozenset({"submit_appeal"}))


def runner(
    policy: Any, toolbox: Toolbox, recorders: CapturedEpisodes, config: EpisodeConfig = CONFIG, **kw: Any
) -> EpisodeRunner:
    kw.setdefault("clock", FakeClock())
    kw.setdefault("id_factory", SequentialIds("ep"))
    kw.setdefault("rules", RULES)
    return EpisodeRunner(policy, toolbox, recorders, config, **kw)


def types(recorders: CapturedEpisodes) -> list[str]:
    return [re.sub(r"\.v\d+$", "", event.type.removeprefix("loopline.")) for event in recorders.events]


def test_step_budget_exhaustion_escalates_with_trigger_budget(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    config = EpisodeConfig(max_steps=2)
    result = runner(ScriptedPolicy(lambda messages: LOOKUP), toolbox, recorders, config).run(work_item)

    assert (result.status, result.steps, result.tool_calls) == ("budget_exhausted", 2, 2)
    assert result.escalation is not None and result.escalation.trigger == "budget"
    assert "2 model turns" in result.escalation.reason
    assert types(recorders)[-2:] == ["escalated", "episode.ended"]
    assert recorders.events[-1].data.status == "budget_exhausted"  # type: ignore[attr-defined]


def test_time_budget_refuses_the_next_tool_call_and_escalates(
    toolbox: Toolbox, toy_backend: ToyBackend, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    clock = FakeClock()

    def slow_model(messages: Sequence[Message]) -> PolicyReply:
        clock.advance(40.0)  # each turn takes 40 s of a 60 s budget
        return LOOKUP

    result = runner(ScriptedPolicy(slow_model), toolbox, recorders, clock=clock).run(work_item)

    assert result.status == "budget_exhausted" and result.steps == 2
    assert result.tool_calls == 1  # the second call was refused, not made
    assert len(toy_backend.invocations) == 1
    refused = recorders.events[-3].data
    assert isinstance(refused, ToolFailed) and refused.error.kind == "budget"
    assert types(recorders)[-4:] == ["tool.called", "tool.failed", "escalated", "episode.ended"]
    assert result.escalation is not None and "60" in result.escalation.reason


def test_time_budget_is_checked_before_asking_the_model(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    clock = FakeClock()

    def lookup_then_stall(messages: Sequence[Message]) -> PolicyReply:
        return LOOKUP

    class SlowBackendToolbox(Toolbox):
        def call(self, call: Any) -> Any:
            clock.advance(61.0)
            return super().call(call)

    slow = SlowBackendToolbox(toolbox.specs(), toolbox.backend)
    result = runner(ScriptedPolicy(lookup_then_stall), slow, recorders, clock=clock).run(work_item)
    assert (result.status, result.steps, result.tool_calls) == ("budget_exhausted", 1, 1)
    assert types(recorders)[-3:] == ["tool.returned", "escalated", "episode.ended"]


def test_calling_the_escalate_tool_ends_the_episode_escalated_by_the_policy(
    toolbox: Toolbox, toy_backend: ToyBackend, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    escalate = act(
        call(
            "escalate_to_human",
            {"reason": "write-off above $500", "recommendation": "approve write-off", "queue": "supervisor"},
        ),
        call("write_off", {"claim_id": "C-1", "amount": "120.00", "reason": "never runs"}),
    )
    result = runner(ScriptedPolicy([LOOKUP, escalate]), toolbox, recorders).run(work_item)

    assert result.status == "escalated"
    assert result.escalation == Escalated(
        reason="write-off above $500",
        trigger="policy",
        recommendation="approve write-off",
        queue="supervisor",
    )
    assert [tool for tool, _ in toy_backend.invocations] == ["lookup_claim", "escalate_to_human"]
    assert types(recorders)[-4:] == ["tool.called", "tool.returned", "escalated", "episode.ended"]


def test_a_failed_escalate_call_is_answered_and_the_episode_goes_on(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    bad = act(call("escalate_to_human", {"recommendation": "no reason given"}))
    result = runner(ScriptedPolicy([bad, say("fine, done")]), toolbox, recorders).run(work_item)
    assert result.status == "completed" and result.escalation is None
    failed = recorders.events[3].data
    assert isinstance(failed, ToolFailed) and failed.error.kind == "validation"


def test_a_built_in_escalate_tool_is_offered_when_the_toolbox_has_none(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    seen_tools: list[str] = []

    def model(messages: Sequence[Message]) -> PolicyReply:
        return act(call("escalate", {"reason": "contradictory remittance", "queue": "billing"}))

    class Spy(ScriptedPolicy):
        def complete(
            self, messages: Sequence[Message], tools: Sequence[Any], view: EpisodeView | None = None
        ) -> PolicyReply:
            seen_tools.extend(tool["function"]["name"] for tool in tools)
            return super().complete(messages, tools)

    config = EpisodeConfig()
    result = runner(Spy(model), toolbox, recorders, config, rules=builtin_rules("escalate")).run(work_item)

    assert "escalate" in seen_tools and set(toolbox.names) <= set(seen_tools)
    assert result.escalation is not None and result.escalation.queue == "billing"
    started = recorders.events[0].data
    assert isinstance(started, EpisodeStarted) and "escalate" in started.tools


def test_a_policy_can_ask_for_a_human_without_a_tool(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    policy = ScriptedPolicy([ask_human("B7: provider not credentialed", queue="credentialing")])
    result = runner(policy, toolbox, recorders).run(work_item)
    assert result.status == "escalated"
    assert result.escalation is not None
    assert (result.escalation.trigger, result.escalation.queue) == ("policy", "credentialing")
    assert types(recorders) == ["episode.started", "model.responded", "escalated", "episode.ended"]


def test_a_terminal_tool_completes_the_episode_without_another_turn(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    config = EpisodeConfig()
    appeal = act(
        call("submit_appeal", {"claim_id": "C-1", "letter": "records attached"}), content="Appealing."
    )
    result = runner(ScriptedPolicy([LOOKUP, appeal]), toolbox, recorders, config, rules=APPEAL_ENDS).run(
        work_item
    )
    assert (result.status, result.steps, result.final_message) == ("completed", 2, "Appealing.")


def test_a_failed_terminal_tool_does_not_end_the_episode(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    config = EpisodeConfig()
    appeal = act(call("submit_appeal", {"claim_id": "C-404", "letter": "x"}))
    result = runner(
        ScriptedPolicy([appeal, say("gave up")]), toolbox, recorders, config, rules=APPEAL_ENDS
    ).run(work_item)
    assert (result.status, result.steps, result.final_message) == ("completed", 2, "gave up")


def test_an_unexpected_error_is_recorded_then_raised(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    class Broken(ScriptedPolicy):
        def complete(
            self, messages: Sequence[Message], tools: Sequence[Any], view: EpisodeView | None = None
        ) -> PolicyReply:
            raise RuntimeError("bug in a policy adapter")

    with pytest.raises(RuntimeError, match="bug in a policy adapter"):
        runner(Broken([]), toolbox, recorders).run(work_item)
    assert types(recorders) == ["episode.started", "escalated", "episode.ended"]
    assert recorders.events[-1].data.status == "failed"  # type: ignore[attr-defined]
    assert verify_chain(recorders.events) is None


def test_rollouts_with_the_same_script_clock_and_ids_are_identical(
    make_recorders: Callable[[], CapturedEpisodes], work_item: WorkItem
) -> None:
    script = [
        LOOKUP,
        act(call("write_off", {"claim_id": "C-1", "amount": "120.00", "reason": "CO-45"})),
        say("ok"),
    ]

    def rollout() -> list[dict[str, Any]]:
        recorders = make_recorders()
        runner(ScriptedPolicy(list(script)), toy_toolbox(), recorders).run(
            work_item, payload_model=DenialPayload
        )
        return [event.model_dump(mode="json") for event in recorders.events]

    first, second = rollout(), rollout()
    assert first == second
    assert len(first) == 9


def test_the_policy_reference_and_sampling_are_recorded(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    ref = PolicyRef(model="rcm-base", adapter_id="lora-3", route="canary")
    sampling = SamplingParams(temperature=0.7, seed=3)
    policy = ScriptedPolicy([say("done")], ref=ref, sampling=sampling)
    runner(policy, toolbox, recorders).run(work_item)
    assert recorders.events[0].data.policy == ref  # type: ignore[attr-defined]
    assert recorders.events[1].data.sampling == sampling  # type: ignore[attr-defined]


def test_runner_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        EpisodeConfig(max_steps=0)
    with pytest.raises(ValueError):
        EpisodeConfig(max_seconds=0)
    with pytest.raises(ValueError):
        EpisodeConfig(max_invalid_replies=0)
    with pytest.raises(ValueError):
        builtin_rules("x", frozenset({"x"}))


def test_the_invalid_reply_limit_counts_only_replies_in_a_row(
    toolbox: Toolbox, recorders: CapturedEpisodes, work_item: WorkItem
) -> None:
    config = EpisodeConfig(max_invalid_replies=2)
    broken = act(call("lookup_claim", arguments_raw="{"))
    script = [broken, LOOKUP, broken, LOOKUP, broken, say("done")]
    result = runner(ScriptedPolicy(script), toolbox, recorders, config).run(work_item)
    assert (result.status, result.invalid_replies, result.escalation) == ("completed", 3, None)
