"""Gateway sessions: owned by their caller, capped per caller, closed (and recorded) when idle."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adapters import Toolbox
from adapters.rcm import RCM_TOOLS, SimBackend, seed_world
from bridge.api.sessions import GatewaySessions, SessionError
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from schemas import WorkItem

ITEM = WorkItem(domain="rcm", kind="denial", item_id="CLM-1001", instructions="work it",
                payload={"claim_id": "CLM-1001"})  # fmt: skip


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _open(sessions: GatewaySessions, sink: InMemoryEventSink, make: Callable[..., EpisodeRecorder],
          episode_id: str, owner: str) -> None:  # fmt: skip
    sessions.open(episode_id, make(episode_id, sink), ITEM, model="ext", max_steps=4, owner=owner)


def test_an_idle_session_is_closed_as_aborted_with_the_reason_recorded(
    make_recorder: Callable[..., EpisodeRecorder],
) -> None:
    clock, sink = Clock(), InMemoryEventSink()
    sessions = GatewaySessions(Toolbox(RCM_TOOLS, SimBackend(seed_world())), idle_timeout_s=60, clock=clock)
    _open(sessions, sink, make_recorder, "ep-idle", "caller-a")
    _open(sessions, sink, make_recorder, "ep-busy", "caller-a")
    clock.now = 50
    sessions.call("ep-busy", "caller-a", "get_claim", {"claim_id": "CLM-1001"}, None)  # touched
    clock.now = 100
    assert sessions.expire() == 1
    ended = sink.of("ep-idle")[-1]
    assert ended.type == "loopline.episode.ended.v1" and ended.data.status == "aborted"  # type: ignore[attr-defined]
    assert "idle" in (ended.data.final_message or "")  # type: ignore[attr-defined]
    with pytest.raises(SessionError) as gone:
        sessions.get("ep-idle", "caller-a")
    assert gone.value.status == 404
    assert sessions.get("ep-busy", "caller-a") is not None
    assert sessions.open_count("caller-a") == 1


def test_the_cap_is_per_caller_and_a_session_is_invisible_to_other_callers(
    make_recorder: Callable[..., EpisodeRecorder],
) -> None:
    sink = InMemoryEventSink()
    sessions = GatewaySessions(Toolbox(RCM_TOOLS, SimBackend(seed_world())), max_per_caller=2)
    _open(sessions, sink, make_recorder, "a-1", "caller-a")
    _open(sessions, sink, make_recorder, "a-2", "caller-a")
    with pytest.raises(SessionError) as capped:
        _open(sessions, sink, make_recorder, "a-3", "caller-a")
    assert capped.value.status == 429
    _open(sessions, sink, make_recorder, "b-1", "caller-b")
    with pytest.raises(SessionError):
        sessions.call("a-1", "caller-b", "get_claim", {"claim_id": "CLM-1001"}, None)
    assert sessions.close_all("the bridge is shutting down") == 3
    assert all(sink.of(e)[-1].data.status == "aborted" for e in ("a-1", "a-2", "b-1"))  # type: ignore[attr-defined]


def test_a_call_to_an_episode_that_ended_meanwhile_reads_as_absent_and_records_nothing(
    make_recorder: Callable[..., EpisodeRecorder],
) -> None:
    sink = InMemoryEventSink()
    sessions = GatewaySessions(Toolbox(RCM_TOOLS, SimBackend(seed_world())))
    _open(sessions, sink, make_recorder, "ep-1", "caller-a")
    sessions.get("ep-1", "caller-a").episode.end("completed")  # as a concurrent close would
    recorded = len(sink.of("ep-1"))
    with pytest.raises(SessionError) as gone:
        sessions.call("ep-1", "caller-a", "get_claim", {"claim_id": "CLM-1001"}, None)
    assert gone.value.status == 404 and len(sink.of("ep-1")) == recorded
