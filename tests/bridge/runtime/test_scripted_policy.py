"""`ScriptedPolicy`: the model stand-in behind the same port, for tests and the sandbox."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine import Message, PolicyError, PolicyReply, ScriptedPolicy, act, ask_human, call, say

MESSAGES: list[Message] = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def test_a_list_script_answers_in_order_then_fails_typed() -> None:
    policy = ScriptedPolicy([act(call("lookup_claim", {"claim_id": "C-1"})), say("done")])
    first = policy.complete(MESSAGES, [])
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("lookup_claim", {"claim_id": "C-1"})]
    assert policy.complete(MESSAGES, []).content == "done"
    with pytest.raises(PolicyError) as caught:
        policy.complete(MESSAGES, [])
    assert caught.value.kind == "protocol"


def test_a_function_script_sees_the_conversation() -> None:
    def echo_last(messages: Sequence[Message]) -> PolicyReply:
        return say(f"last was {messages[-1]['role']}")

    assert ScriptedPolicy(echo_last).complete(MESSAGES, []).content == "last was user"


def test_call_ids_are_assigned_deterministically_when_left_out() -> None:
    def both(messages: Sequence[Message]) -> PolicyReply:
        return act(call("a"), call("b", call_id="mine"))

    ids = [[c.call_id for c in ScriptedPolicy(both).complete(MESSAGES, []).tool_calls] for _ in range(2)]
    assert ids[0] == ids[1]
    assert ids[0][1] == "mine" and ids[0][0]


def test_scripted_replies_carry_their_raw_form_and_no_parse_errors() -> None:
    reply = ScriptedPolicy([act(call("a", {"x": 1}), content="thinking")]).complete(MESSAGES, [])
    assert reply.tool_calls[0].error is None
    assert reply.tool_calls[0].arguments_raw == '{"x":1}'
    assert '"thinking"' in reply.raw
    assert reply.latency_ms == 0.0


def test_a_script_can_escalate_explicitly() -> None:
    reply = ScriptedPolicy([ask_human("contradictory remittance", recommendation="call payer")]).complete(
        MESSAGES, []
    )
    assert reply.escalation is not None
    assert (reply.escalation.reason, reply.escalation.recommendation) == (
        "contradictory remittance",
        "call payer",
    )


def test_a_script_can_send_malformed_arguments_to_exercise_the_runtime() -> None:
    reply = act(call("a", arguments_raw="{not json"))
    assert reply.tool_calls[0].arguments is None
    assert reply.tool_calls[0].error is not None
