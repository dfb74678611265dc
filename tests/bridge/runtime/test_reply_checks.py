"""Which replies are usable, and how escalate calls of any domain are read."""

from __future__ import annotations

import pytest

from engine import PolicyReply, act, call, say
from engine.validate import check_reply
from tests.bridge.runtime.doubles import SequentialIds

OFFERED = ["lookup_claim", "write_off"]


def check(reply: PolicyReply, *, require_tool_call: bool = False) -> tuple[list[str], str | None]:
    result = check_reply(reply, OFFERED, require_tool_call=require_tool_call, new_call_id=SequentialIds("c"))
    return [c.call_id for c in result.calls], result.invalid_reason


def test_calls_without_an_id_get_one_from_the_id_factory() -> None:
    ids, reason = check(act(call("lookup_claim", {"claim_id": "C-1"}), call("write_off", call_id="w")))
    assert (ids, reason) == (["c-0001", "w"], None)


def test_one_broken_call_makes_the_whole_reply_invalid() -> None:
    ids, reason = check(act(call("lookup_claim"), call("write_off", arguments_raw="{")))
    assert ids == [] and reason is not None and "'write_off'" in reason


def test_duplicate_call_ids_are_invalid() -> None:
    _, reason = check(act(call("lookup_claim", call_id="x"), call("write_off", call_id="x")))
    assert reason is not None and "share the id" in reason


def test_an_id_too_long_for_the_contract_is_invalid_not_a_crash() -> None:
    _, reason = check(act(call("lookup_claim", call_id="x" * 500)))
    assert reason is not None and "malformed" in reason


@pytest.mark.parametrize(
    ("reply", "required", "expected"),
    [
        (say("all done"), False, None),
        (say("all done"), True, "a tool call was required"),
        (say("   "), False, "empty"),
        (PolicyReply(content="I will now wri", finish_reason="length"), False, "token limit"),
    ],
)
def test_text_replies(reply: PolicyReply, required: bool, expected: str | None) -> None:
    _, reason = check(reply, require_tool_call=required)
    assert (reason is None) if expected is None else (reason is not None and expected in reason)
