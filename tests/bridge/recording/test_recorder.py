"""The recorder: gap-free, hash-chained, PHI-free episodes, resumable for later outcomes."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from bridge.capture import SqliteOutbox
from bridge.phi import OPERATOR_ROLE, PhiVault, Redactor
from bridge.recording import EpisodeRecorder, InMemoryEventSink, StreamHead, UnknownStream, record_outcome
from engine import Recorder
from schemas import Event, SideEffect, ToolOutcome, ToolResult, to_json, to_kafka, verify_chain
from schemas.events import ModelResponded, OutcomeObserved, PolicyRef
from tests.bridge.conftest import SOURCE
from tests.bridge.phi.phi_models import RAW_PHI, ClaimPayload, Patient, WorldState
from tests.bridge.recording.episodes import ARGS_MODELS, lookup_call, record_episode, work_item

MakeRecorder = Callable[..., EpisodeRecorder]


def test_a_recorded_episode_is_gap_free_and_its_chain_verifies(
    make_recorder: MakeRecorder, outbox: SqliteOutbox
) -> None:
    events = record_episode(make_recorder("ep-1", outbox, args_models=ARGS_MODELS), calls=3)
    assert [e.seq for e in events] == list(range(len(events)))
    stored = outbox.events("ep-1")
    assert [doc["id"] for doc in stored] == [e.id for e in events]
    assert verify_chain(stored) is None
    assert verify_chain(events) is None


def test_no_phi_value_reaches_any_produced_byte(make_recorder: MakeRecorder, outbox: SqliteOutbox) -> None:
    record_episode(make_recorder("ep-1", outbox, args_models=ARGS_MODELS))
    produced = b"".join(
        row.doc + row.record().value + b"".join(value for _, value in row.record().headers)
        for row in outbox.rows()
    )
    assert produced  # the check below would pass on nothing
    for raw in RAW_PHI:
        assert raw.encode() not in produced, raw


def test_redacted_values_are_tokens_an_operator_can_reveal(
    make_recorder: MakeRecorder, vault: PhiVault
) -> None:
    sink = InMemoryEventSink()
    events = record_episode(make_recorder("ep-1", sink, args_models=ARGS_MODELS))
    started, turn, called, returned = (e.model_dump(mode="json")["data"] for e in events[:4])
    patient = started["work_item"]["payload"]["patient"]
    assert patient["plan"] == "HMO" and patient["name"].startswith("phi_")
    assert vault.reveal(patient["name"], OPERATOR_ROLE) == "Ada Lovelace"
    assert called["call"]["arguments"]["claim_id"] == "CLM-1"
    assert called["call"]["arguments"]["member_id"] == patient["member_id"]  # one patient, one token
    assert turn["tool_calls"][0]["arguments"]["member_id"] == patient["member_id"]
    assert returned["result"]["status"] == "denied"
    assert vault.reveal(returned["result"]["patient_name"], OPERATOR_ROLE) == "Ada Lovelace"


def test_a_tool_without_an_argument_model_has_every_argument_tokenised(
    make_recorder: MakeRecorder,
) -> None:
    sink = InMemoryEventSink()
    recorder = make_recorder("ep-1", sink)
    event = recorder.tool_called(lookup_call(0), None, None)
    arguments = event.model_dump(mode="json")["data"]["call"]["arguments"]
    assert set(arguments) == {"claim_id", "member_id"}
    assert all(value.startswith("phi_") for value in arguments.values())


def test_a_world_snapshot_without_a_snapshot_redactor_is_refused(make_recorder: MakeRecorder) -> None:
    recorder = make_recorder("ep-1", InMemoryEventSink())
    with pytest.raises(ValueError, match="snapshot"):
        recorder.started(
            work_item(), payload_model=ClaimPayload, policy=PolicyRef(model="m"), tools=[], tools_hash="t",
            system_prompt_hash="p", max_steps=1, max_seconds=1.0, world_snapshot={"patients": {}},
        )  # fmt: skip


def test_a_world_snapshot_is_redacted_by_its_model(make_recorder: MakeRecorder, redactor: Redactor) -> None:
    recorder = make_recorder(
        "ep-1", InMemoryEventSink(), snapshot_redact=redactor.snapshot_redactor(WorldState)
    )
    patient = Patient(name="Ada Lovelace", member_id="MBR-0042", birth_year=1815).model_dump(mode="json")
    event = recorder.started(
        work_item(), payload_model=ClaimPayload, policy=PolicyRef(model="m"), tools=[], tools_hash="t",
        system_prompt_hash="p", max_steps=1, max_seconds=1.0,
        world_snapshot={"patients": {"p1": patient}, "open_claims": ["CLM-1"]},
    )  # fmt: skip
    snapshot = event.model_dump(mode="json")["data"]["world_snapshot"]
    assert snapshot["open_claims"] == ["CLM-1"]
    assert snapshot["patients"]["p1"]["name"].startswith("phi_")
    assert "Ada" not in to_json(event).decode()


class FlakySink:
    """Refuses the n-th append (a full disk), keeps the rest."""

    def __init__(self, fail_at: int) -> None:
        self.inner = InMemoryEventSink()
        self.calls = 0
        self.fail_at = fail_at

    def append(self, event: Event, doc: bytes | None = None) -> None:
        self.calls += 1
        if self.calls == self.fail_at:
            raise OSError("disk full")
        self.inner.append(event)


def test_a_refused_append_leaves_no_gap_in_the_chain(make_recorder: MakeRecorder) -> None:
    sink = FlakySink(fail_at=2)
    recorder = make_recorder("ep-1", sink)
    recorder.escalated("one", trigger="rule")
    with pytest.raises(OSError):
        recorder.escalated("two", trigger="rule")
    recorder.escalated("two again", trigger="rule")
    stored = sink.inner.of("ep-1")
    assert [e.seq for e in stored] == [0, 1]
    assert verify_chain(stored) is None


def test_an_outcome_resumes_the_chain_of_an_episode_recorded_by_an_earlier_process(
    make_recorder: MakeRecorder, open_outbox: Callable[..., SqliteOutbox], redactor: Redactor, tmp_path: Any
) -> None:
    first = open_outbox(tmp_path / "o.db")
    events = record_episode(make_recorder("ep-1", first, args_models=ARGS_MODELS))
    first.close()

    later = open_outbox(tmp_path / "o.db")
    outcome = OutcomeObserved(
        kind="paid",
        item_id="CLM-1",
        observed_at=datetime(2025, 3, 1, tzinfo=UTC),
        details={"payee": "Ada Lovelace"},
    )
    event = record_outcome(later, "ep-1", outcome, redactor=redactor, source=SOURCE)
    assert event.seq == len(events) and event.prevhash == events[-1].hash
    assert verify_chain(later.events("ep-1")) is None
    assert b"Ada" not in to_kafka(event).value


class StaleHeadOnce:
    """A store whose first `stream_head` answer is out of date: another writer got in between."""

    def __init__(self, inner: InMemoryEventSink) -> None:
        self.inner = inner
        self.stale = True

    def append(self, event: Event, doc: bytes | None = None) -> None:
        self.inner.append(event)

    def stream_head(self, episode_id: str) -> StreamHead:
        head = self.inner.stream_head(episode_id)
        if self.stale:
            self.stale = False
            return StreamHead(head.next_seq - 1, self.inner.of(episode_id)[-2].hash)
        return head


def test_an_outcome_racing_another_writer_is_retried_on_the_new_head(
    make_recorder: MakeRecorder, redactor: Redactor
) -> None:
    sink = InMemoryEventSink()
    recorder = make_recorder("ep-1", sink)
    recorder.escalated("one", trigger="rule")
    recorder.escalated("two", trigger="rule")
    outcome = OutcomeObserved(kind="paid", item_id="CLM-1", observed_at=datetime(2025, 3, 1, tzinfo=UTC))
    event = record_outcome(StaleHeadOnce(sink), "ep-1", outcome, redactor=redactor, source=SOURCE)
    assert event.seq == 2
    assert verify_chain(sink.of("ep-1")) is None


def test_an_outcome_for_an_episode_the_store_never_saw_is_refused(
    redactor: Redactor, outbox: SqliteOutbox
) -> None:
    outcome = OutcomeObserved(kind="paid", item_id="CLM-1", observed_at=datetime(2025, 3, 1, tzinfo=UTC))
    with pytest.raises(UnknownStream):
        record_outcome(outbox, "ep-never", outcome, redactor=redactor, source=SOURCE)


def test_misused_calls_are_refused(make_recorder: MakeRecorder) -> None:
    recorder = make_recorder("ep-1", InMemoryEventSink())
    failed = ToolResult(call_id="c", name="t", outcome=ToolOutcome.FAILED, result=None)
    with pytest.raises(ValueError):
        recorder.tool_returned(failed, None)
    ok = ToolResult(call_id="c", name="t", outcome=ToolOutcome.OK, result={})
    with pytest.raises(ValueError):
        recorder.tool_failed(ok)
    recorder.model_responded(ModelResponded(turn=0))
    with pytest.raises(ValueError, match="already started"):
        recorder.started(
            work_item(), payload_model=None, policy=PolicyRef(model="m"), tools=[], tools_hash="t",
            system_prompt_hash="p", max_steps=1, max_seconds=1.0,
        )  # fmt: skip


def test_the_recorder_has_every_method_the_runtime_calls_with_the_same_parameters() -> None:
    port_methods = [
        name for name, member in inspect.getmembers(Recorder) if callable(member) and not name.startswith("_")
    ]
    assert port_methods  # guards the comparison below against an empty list
    for name in port_methods:
        want = inspect.signature(getattr(Recorder, name)).parameters
        have = inspect.signature(getattr(EpisodeRecorder, name)).parameters
        for param in want.values():
            assert param.name in have, f"{name} lacks {param.name}"
            assert have[param.name].kind == param.kind, f"{name}.{param.name} kind differs"
            if param.default is inspect.Parameter.empty:
                continue
            assert have[param.name].default == param.default, f"{name}.{param.name} default differs"
        extra = [p for p in have.values() if p.name not in want and p.default is inspect.Parameter.empty]
        assert extra == [], f"{name} requires parameters the runtime does not pass: {extra}"
    assert hasattr(EpisodeRecorder, "episode_id")
    _: SideEffect = SideEffect.READ
