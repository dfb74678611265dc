"""Episodes a crash or a shutdown left open are closed with `episode.interrupted`, naming the call
in flight; a closed gate refuses recorders while the closing event is written."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bridge.capture import SqliteOutbox
from bridge.capture.recovery import close_interrupted
from bridge.phi import Redactor
from bridge.recording import CaptureUnavailable, EpisodeRecorder
from bridge.recording.gate import GatedSink
from schemas import SideEffect, ToolCall, ToolOutcome, ToolResult, verify_chain
from schemas.events import ModelResponded, PolicyRef
from tests.bridge.conftest import SOURCE
from tests.bridge.phi.phi_models import LookupArgs
from tests.bridge.recording.episodes import ARGS_MODELS, record_episode, work_item

MakeRecorder = Callable[..., EpisodeRecorder]


def _start(recorder: EpisodeRecorder) -> None:
    recorder.started(work_item(), payload_model=None, policy=PolicyRef(model="m"),
                     tools=["lookup_claim"], tools_hash="h", system_prompt_hash="p", max_steps=5, max_seconds=60)  # fmt: skip


def test_open_episodes_are_closed_naming_the_write_in_flight_and_closed_ones_are_left(
    make_recorder: MakeRecorder, outbox: SqliteOutbox, redactor: Redactor
) -> None:
    record_episode(make_recorder("done", outbox, args_models=ARGS_MODELS))
    writing = make_recorder("writing", outbox)
    _start(writing)
    call = ToolCall(call_id="w-1", name="submit_appeal", arguments={"claim_id": "CLM-1"})
    writing.model_responded(ModelResponded(turn=0, tool_calls=(call,)))
    writing.tool_called(call, SideEffect.WRITE, None)  # the process died here, the write in flight
    thinking = make_recorder("thinking", outbox)
    _start(thinking)
    read = ToolCall(call_id="r-1", name="lookup_claim", arguments={"claim_id": "CLM-1", "member_id": "M"})
    thinking.tool_called(read, SideEffect.READ, LookupArgs)

    written = close_interrupted(outbox, redactor, SOURCE, "found open at start-up")
    assert sorted(e.episodeid for e in written) == ["thinking", "writing"]
    closing = outbox.events("writing")[-1]
    assert closing["type"] == "loopline.episode.interrupted.v1"
    assert closing["data"] | {"reason": "-"} == {
        "reason": "-", "last_seq": 2, "last_event_type": "loopline.tool.called.v1", "last_call_id": "w-1",
        "last_tool": "submit_appeal", "last_side_effect": "write", "effect_unknown": True,
    }  # fmt: skip
    assert outbox.events("thinking")[-1]["data"]["effect_unknown"] is False  # a read changes nothing
    assert all(verify_chain(outbox.events(e)) is None for e in ("done", "writing", "thinking"))
    assert outbox.events("done")[-1]["type"] == "loopline.episode.ended.v1"
    assert close_interrupted(outbox, redactor, SOURCE, "again") == []  # closed once


def test_a_closed_gate_refuses_recorders_and_the_closing_event_continues_the_chain(
    make_recorder: MakeRecorder, outbox: SqliteOutbox, redactor: Redactor
) -> None:
    gate = GatedSink(outbox)
    late = make_recorder("late", gate)
    _start(late)
    gate.close_gate("the bridge is shutting down")
    with pytest.raises(CaptureUnavailable, match="shutting down"):
        late.escalated("too late", trigger="runtime")
    [closing] = close_interrupted(outbox, redactor, SOURCE, "cut off by shutdown")
    assert closing.seq == 1 and verify_chain(outbox.events("late")) is None


def test_of_parallel_calls_the_write_still_out_is_named_though_a_later_read_answered(
    make_recorder: MakeRecorder, outbox: SqliteOutbox, redactor: Redactor
) -> None:
    both = make_recorder("both", outbox)
    _start(both)
    write = ToolCall(call_id="w-1", name="submit_appeal", arguments={"claim_id": "CLM-1"})
    read = ToolCall(call_id="r-1", name="lookup_claim", arguments={"claim_id": "CLM-1", "member_id": "M"})
    both.model_responded(ModelResponded(turn=0, tool_calls=(write, read)))
    both.tool_called(write, SideEffect.WRITE, None)
    both.tool_called(read, SideEffect.READ, LookupArgs)
    both.tool_returned(
        ToolResult(call_id="r-1", name="lookup_claim", outcome=ToolOutcome.OK, result={}), None
    )
    (closing,) = close_interrupted(outbox, redactor, SOURCE, "found open at start-up")
    assert closing.data.model_dump(include={"last_call_id", "last_tool", "effect_unknown"}) == {
        "last_call_id": "w-1", "last_tool": "submit_appeal", "effect_unknown": True,
    }  # fmt: skip
