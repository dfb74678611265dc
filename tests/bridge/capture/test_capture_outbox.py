"""The SQLite outbox: what it stores, in which order, how durable, how it is drained and pruned."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.capture import DeliveryLog, DeliveryMark, OutboxClosed, SqliteOutbox
from bridge.capture.outbox import delivery_path
from bridge.capture.outbox_rows import INSERT, encode_row, kafka_record, kafka_record_of
from bridge.phi import PhiKeys, PhiTokenizer, PhiVault, Redactor
from bridge.recording import CaptureUnavailable, EpisodeRecorder, StreamConflict, StreamHead
from schemas import EpisodeChain, Event, SideEffect, ToolCall, from_kafka, to_json, to_kafka, verify_chain
from schemas.chain import SealedEvent, hash_structured
from schemas.events import Escalated, ToolCalled
from tests.schemas.strategies import events, sealed_events

OpenOutbox = Callable[..., SqliteOutbox]


def escalation(n: int) -> Escalated:
    return Escalated(reason=f"reason {n}", trigger="rule")


def chain(episode: str) -> EpisodeChain:
    return EpisodeChain(episode, tenant="clinic-a", source="loopline://tests/capture")


def test_a_row_holds_the_event_as_written_and_produces_its_kafka_binary_form(outbox: SqliteOutbox) -> None:
    event = chain("ep-1").append(escalation(0), subject="CLM-1")
    outbox.append(event)
    [row] = outbox.rows()
    assert row.doc == to_json(event)
    assert row.record() == to_kafka(event)
    assert from_kafka(row.record().value, row.record().headers) == event
    assert (row.delivered_at, row.partition, row.offset) == (None, None, None)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event=events())
def test_the_stored_json_yields_exactly_what_to_kafka_makes_of_any_event(event: Event) -> None:
    stored = json.loads(to_json(event))
    assert kafka_record(stored) == to_kafka(event)
    assert hash_structured(stored) == event.hash  # the stored form verifies as written


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sealed=sealed_events())
def test_a_sealed_doc_yields_exactly_what_to_kafka_makes_of_any_event(sealed: SealedEvent) -> None:
    record = to_kafka(sealed.event)
    assert kafka_record_of(sealed.doc) == record == kafka_record(json.loads(sealed.doc))
    assert kafka_record_of(to_json(sealed.event)) == record  # rows pydantic wrote take the slow path


def test_a_nested_datacontenttype_does_not_fool_the_sealed_doc_fast_path() -> None:
    decoy = ',"datacontenttype":"application/json","dataschema":null}'
    arguments = {"datacontenttype": {"datacontenttype": decoy}, "note": decoy, "z": [decoy]}
    call = ToolCall(call_id="c1", name="add_note", arguments=arguments)
    event, doc = chain("ep-1").seal(ToolCalled(call=call, side_effect=SideEffect.WRITE), subject=decoy)
    record = kafka_record_of(doc)
    assert record == to_kafka(event)
    assert from_kafka(record.value, record.headers) == event


def test_a_recorded_row_holds_the_sealed_doc_and_verifies_as_stored(outbox: SqliteOutbox) -> None:
    event, doc = chain("ep-1").seal(escalation(0))
    outbox.append(event, doc)
    [row] = outbox.rows()
    assert row.doc == doc
    assert verify_chain([row.structured()]) is None
    assert from_kafka(row.record().value, row.record().headers) == event


def test_rows_keep_append_order_across_interleaved_episodes(
    outbox: SqliteOutbox, delivery: DeliveryLog
) -> None:
    a, b = chain("ep-a"), chain("ep-b")
    appended = [
        a.append(escalation(0)),
        b.append(escalation(0)),
        b.append(escalation(1)),
        a.append(escalation(1)),
    ]
    for event in appended:
        outbox.append(event)
    rows = outbox.rows()
    assert [row.event_id for row in rows] == [e.id for e in appended]
    assert [row.pos for row in rows] == sorted(row.pos for row in rows)
    assert [row.event_id for row in delivery.pending(0, 10)] == [e.id for e in appended]


def test_a_reopened_outbox_has_every_event_and_resumes_the_stream(
    open_outbox: OpenOutbox, tmp_path: Path
) -> None:
    c = chain("ep-1")
    first = open_outbox(tmp_path / "o.db")
    for i in range(5):
        first.append(c.append(escalation(i)))
    first.close()

    second = open_outbox(tmp_path / "o.db")
    assert second.stream_head("ep-1") == StreamHead(5, c.prevhash)
    resumed = EpisodeChain("ep-1", tenant="clinic-a", source="s", next_seq=5, prevhash=c.prevhash)
    second.append(resumed.append(escalation(5)))
    assert verify_chain(second.events("ep-1")) is None
    assert len(second.events("ep-1")) == 6


def test_retries_are_no_ops_and_forks_are_refused_across_a_reopen(
    open_outbox: OpenOutbox, tmp_path: Path
) -> None:
    c = chain("ep-1")
    events = [c.append(escalation(n)) for n in range(4)]
    with SqliteOutbox(tmp_path / "o.db") as first:
        first.append_many(events[:2])
    reopened = open_outbox(tmp_path / "o.db")
    for event in events[2:]:
        reopened.append(event)
    for event in events:
        reopened.append(event)  # a retry: nothing happens
        rival = EpisodeChain("ep-1", tenant="clinic-a", source="s", next_seq=event.seq).append(escalation(9))
        with pytest.raises(StreamConflict):
            reopened.append(rival)
        with pytest.raises(StreamConflict):
            reopened.append_many([rival])
    assert [(r.event_id, r.seq) for r in reopened.rows("ep-1")] == [(e.id, e.seq) for e in events]


@pytest.mark.parametrize("durability", ["process", "power"])
def test_many_threads_append_without_loss_or_duplicates(open_outbox: OpenOutbox, durability: str) -> None:
    outbox = open_outbox(durability=durability)
    threads_n, per_thread = 8, 150
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            c = chain(f"ep-{n}")
            for i in range(per_thread):
                outbox.append(c.append(escalation(i)))
        except BaseException as exc:  # surfaced below; a thread's exception is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for n in range(threads_n):
        assert verify_chain(outbox.events(f"ep-{n}")) is None
        assert len(outbox.events(f"ep-{n}")) == per_thread
    assert outbox.pending_count() == threads_n * per_thread


def test_durability_modes_set_the_sqlite_pragmas_they_promise(
    open_outbox: OpenOutbox, tmp_path: Path
) -> None:
    process = open_outbox(tmp_path / "a.db", durability="process")
    power = open_outbox(tmp_path / "b.db", durability="power")
    pragmas = ("PRAGMA journal_mode", "PRAGMA synchronous")  # synchronous: 1 NORMAL, 2 FULL
    assert [process._conn.execute(p).fetchone()[0] for p in pragmas] == ["wal", 1]
    assert [power._conn.execute(p).fetchone()[0] for p in pragmas] == ["wal", 2]


def test_an_open_outbox_belongs_to_its_process_and_is_readable_once_closed(tmp_path: Path) -> None:
    # The durability itself (a commit is in the WAL file, not in a process buffer) is proven by
    # killing a writer with SIGKILL: test_capture_sigkill.py.
    path = tmp_path / "outbox.db"
    outbox = SqliteOutbox(path)
    event = chain("ep-1").append(escalation(0))
    outbox.append(event)
    other = subprocess.run(
        [sys.executable, "-c", OPEN_IN_ANOTHER_PROCESS, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[3],
    )
    assert other.returncode == 3, other.stderr
    assert "is open in another process" in other.stdout
    outbox.close()
    reader = sqlite3.connect(path)
    try:
        assert reader.execute("SELECT event_id FROM outbox").fetchall() == [(event.id,)]
    finally:
        reader.close()


OPEN_IN_ANOTHER_PROCESS = """
import sys
from bridge.capture import OutboxInUse, SqliteOutbox
try:
    SqliteOutbox(sys.argv[1], open_timeout_s=0.2)
except OutboxInUse as exc:
    print(exc)
    sys.exit(3)
"""


def test_all_settled_says_whether_every_row_up_to_a_position_has_its_final_word(
    outbox: SqliteOutbox, delivery: DeliveryLog
) -> None:
    assert outbox.all_settled()  # nothing stored
    c = chain("ep-1")
    for i in range(4):
        outbox.append(c.append(escalation(i)))
    rows = outbox.rows()
    assert not outbox.all_settled() and not outbox.all_settled(upto_pos=rows[0].pos)
    delivery.mark([DeliveryMark(rows[0].pos, 0, 1, 1000.0), DeliveryMark(rows[2].pos, 0, 2, 1000.0)])
    assert outbox.all_settled(upto_pos=rows[0].pos)
    assert not outbox.all_settled(upto_pos=rows[2].pos)  # rows[1] still waits
    delivery.mark([DeliveryMark.rejection(rows[1].pos, "too large", 1000.0)])
    assert outbox.all_settled(upto_pos=rows[2].pos) and not outbox.all_settled()
    delivery.mark([DeliveryMark(rows[3].pos, 0, 3, 1000.0)])
    assert outbox.all_settled() and outbox.pending_count() == 0
    outbox.append(c.append(escalation(4)))
    assert not outbox.all_settled()


def test_delivered_rows_leave_the_pending_set(outbox: SqliteOutbox, delivery: DeliveryLog) -> None:
    c = chain("ep-1")
    for i in range(4):
        outbox.append(c.append(escalation(i)))
    rows = outbox.rows()
    delivery.mark([DeliveryMark(rows[1].pos, 2, 17, 1000.0)])
    assert [r.pos for r in delivery.pending(0, 10)] == [rows[0].pos, rows[2].pos, rows[3].pos]
    assert outbox.pending_count() == 3
    assert outbox.pending_count(upto_pos=rows[1].pos) == 1
    marked = outbox.rows("ep-1")[1]
    assert (marked.delivered_at, marked.partition, marked.offset) == (1000.0, 2, 17)


def test_prune_keeps_undelivered_rows_each_episodes_last_row_and_the_newest(
    outbox: SqliteOutbox, delivery: DeliveryLog
) -> None:
    a, b = chain("ep-a"), chain("ep-b")
    for i in range(3):
        outbox.append(a.append(escalation(i)))
    outbox.append(b.append(escalation(0)))
    outbox.append(b.append(escalation(1)))
    rows = outbox.rows()
    delivered = [r for r in rows if not (r.episode_id == "ep-b" and r.seq == 1)]  # ep-b#1 stays pending
    delivery.mark([DeliveryMark(r.pos, 0, i, 100.0) for i, r in enumerate(delivered)])

    assert delivery.prune(delivered_before=200.0) == 3  # ep-a#0, ep-a#1, ep-b#0
    left = {(r.episode_id, r.seq) for r in outbox.rows()}
    assert left == {("ep-a", 2), ("ep-b", 1)}
    assert outbox.stream_head("ep-a") == StreamHead(3, a.prevhash)

    assert delivery.prune(delivered_before=200.0, heads_before=200.0) == 1  # ep-a's head goes too
    assert {(r.episode_id, r.seq) for r in outbox.rows()} == {("ep-b", 1)}


def test_prune_spares_the_newest_row_so_positions_only_grow(
    outbox: SqliteOutbox, delivery: DeliveryLog
) -> None:
    c = chain("ep-1")
    for i in range(3):
        outbox.append(c.append(escalation(i)))
    rows = outbox.rows()
    delivery.mark([DeliveryMark(r.pos, 0, r.pos, 1.0) for r in rows])
    delivery.prune(delivered_before=10.0, heads_before=10.0)
    assert [r.pos for r in outbox.rows()] == [rows[-1].pos]
    outbox.append(c.append(escalation(3)))
    assert outbox.last_pos() == rows[-1].pos + 1


def test_append_after_close_is_refused(open_outbox: OpenOutbox, tmp_path: Path) -> None:
    for durability in ("process", "power"):
        outbox = open_outbox(tmp_path / f"{durability}.db", durability=durability)
        outbox.close()
        with pytest.raises(OutboxClosed):
            outbox.append(chain("ep-1").append(escalation(0)))


def test_a_full_disk_is_a_clear_capture_error_and_the_recorder_leaves_no_gap(outbox: SqliteOutbox) -> None:
    keys = PhiKeys.from_master(b"k" * 32)
    vault = PhiVault.open("sqlite://", keys)
    redactor = Redactor(PhiTokenizer(keys, vault), "t")
    recorder = EpisodeRecorder("ep-1", sink=outbox, redactor=redactor, source="loopline://tests/capture")
    recorder.escalated("first", trigger="rule")
    pages = outbox._conn.execute("PRAGMA page_count").fetchone()[0]
    outbox._conn.execute(f"PRAGMA max_page_count={pages}")  # the disk is full from here on
    with pytest.raises(CaptureUnavailable, match="full"):
        for _ in range(200):
            recorder.escalated("x" * 1000, trigger="rule")
    stored = outbox.events("ep-1")
    assert recorder.head.next_seq == len(stored)  # the refused event took no seq
    outbox._conn.execute("PRAGMA max_page_count=1073741823")  # space again
    recorder.escalated("after", trigger="rule")
    assert verify_chain(outbox.events("ep-1")) is None
    vault.close()


def test_an_outbox_of_an_unknown_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=99")
    conn.close()
    with pytest.raises(RuntimeError, match="schema 99"):
        SqliteOutbox(path)


def test_the_first_delivery_report_of_a_row_stands(outbox: SqliteOutbox, delivery: DeliveryLog) -> None:
    # a row produced twice (a discarded producer's report arriving late) is reported twice
    outbox.append(chain("ep-1").append(escalation(0)))
    [row] = outbox.rows()
    delivery.mark([DeliveryMark(row.pos, 1, 7, 10.0)])
    delivery.mark([DeliveryMark(row.pos, 1, 9, 11.0), DeliveryMark(row.pos, 1, 10, 12.0)])
    [marked] = outbox.rows()
    assert (marked.delivered_at, marked.partition, marked.offset) == (10.0, 1, 7)
    assert outbox.pending_count() == 0


def test_pruned_rows_take_their_delivery_reports_with_them(tmp_path: Path) -> None:
    path = tmp_path / "prune.db"
    c = chain("ep-1")
    with SqliteOutbox(path) as outbox, closing(DeliveryLog(path)) as delivery:
        for i in range(4):
            outbox.append(c.append(escalation(i)))
        delivery.mark([DeliveryMark(r.pos, 0, r.pos, 1.0) for r in outbox.rows()])
        assert delivery.prune(delivered_before=10.0, heads_before=10.0) == 3
    reader = sqlite3.connect(delivery_path(path))
    assert reader.execute("SELECT pos FROM delivery").fetchall() == [(4,)]
    reader.close()


def test_a_delivery_report_past_the_newest_row_is_dropped_at_open(tmp_path: Path) -> None:
    # it could only mislabel the row that will next take that position as delivered
    path = tmp_path / "stale.db"
    with SqliteOutbox(path) as outbox, closing(DeliveryLog(path)) as delivery:
        outbox.append(chain("ep-1").append(escalation(0)))
        delivery.mark([DeliveryMark(5, 0, 0, 1.0)])
    with SqliteOutbox(path) as outbox, closing(DeliveryLog(path)) as delivery:
        c = chain("ep-2")
        for i in range(5):
            outbox.append(c.append(escalation(i)))
        assert outbox.pending_count() == 6  # ep-1#0 was never delivered either
        assert [r.pos for r in delivery.pending(0, 10)] == [1, 2, 3, 4, 5, 6]


def largest_wal(path: Path, backstop: int, restart: int | None, monkeypatch: pytest.MonkeyPatch) -> int:
    """The WAL's largest size over 3,000 back-to-back appends checkpointing past `backstop` pages,
    with the relay side checkpointing beside them (starting the WAL over past `restart` pages)
    unless `restart` is None."""
    monkeypatch.setattr("bridge.capture.outbox.WAL_BACKSTOP_PAGES", backstop)
    c, largest, stop = chain("ep-1"), 0, threading.Event()
    with SqliteOutbox(path) as outbox, closing(DeliveryLog(path)) as relay_side:

        def checkpoints() -> None:
            while restart is not None and not stop.wait(0.001):
                relay_side.checkpoint(restart_pages=restart)

        thread = threading.Thread(target=checkpoints)
        thread.start()
        try:
            for i in range(3000):
                outbox.append(c.append(escalation(i)))
                largest = max(largest, path.with_name(f"{path.name}-wal").stat().st_size)
        finally:
            stop.set()
            thread.join()
    return largest


def test_the_wal_stays_bounded_while_appends_never_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Back-to-back appends with nothing starting the WAL over grow it without bound: the relay side
    # starts it over, past a size, and so does an append past the backstop (when no relay runs). The
    # baseline has no checkpoint at all (a PASSIVE one beside the appends sometimes catches up, by
    # timing, which made the comparison flaky).
    unbounded = largest_wal(tmp_path / "a.db", 10**6, None, monkeypatch)
    by_the_relay = largest_wal(tmp_path / "b.db", 10**6, 64, monkeypatch)
    by_an_append = largest_wal(tmp_path / "c.db", 64, None, monkeypatch)
    assert max(by_the_relay, by_an_append) < unbounded / 4, (by_the_relay, by_an_append, unbounded)


def test_the_relay_side_writes_its_marks_while_an_append_holds_the_events_file(
    outbox: SqliteOutbox, delivery: DeliveryLog
) -> None:
    c = chain("ep-1")
    outbox.append(c.append(escalation(0)))
    [row] = delivery.pending(0, 10)
    outbox._conn.execute("BEGIN")  # an append in progress: it holds the events file's write lock
    outbox._conn.execute(INSERT, encode_row(c.append(escalation(1)), 1.0))
    try:
        started = time.monotonic()
        delivery.mark([DeliveryMark(row.pos, 0, 1, 1.0)])  # the delivery file: no wait, no lock error
        assert time.monotonic() - started < 1.0
    finally:
        outbox._conn.execute("ROLLBACK")
    assert outbox.all_settled()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["append", "batch", "read", "mark"]), st.integers(1, 5)),
        max_size=40,
    )
)
def test_a_relay_reading_pending_sees_every_row_once_in_order_whatever_is_marked_meanwhile(
    ops: list[tuple[str, int]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    outbox = SqliteOutbox(tmp_path_factory.mktemp("pending") / "outbox.db")
    delivery = DeliveryLog(outbox.path)
    c, seen, cursor = chain("ep-1"), [], 0
    try:
        for op, n in ops:
            if op == "append":
                for _ in range(n):
                    outbox.append(*c.seal(escalation(c.next_seq)))
            elif op == "batch":
                outbox.append_many([c.append(escalation(c.next_seq)) for _ in range(n)])
            elif op == "read":
                rows = delivery.pending(cursor, n)
                seen.extend(rows)
                cursor = rows[-1].pos if rows else cursor
            elif seen:  # mark: what was read so far, plus (out of turn) the next unread row
                unread = delivery.pending(cursor, 1) if n == 5 else []
                delivery.mark([DeliveryMark(r.pos, 0, r.pos, 1.0) for r in [*seen[-n:], *unread]])
                if unread:
                    seen.extend(unread)
                    cursor = unread[0].pos
        while rows := delivery.pending(cursor, 3):
            seen.extend(rows)
            cursor = rows[-1].pos
        stored = {row.pos: row for row in outbox.rows()}
    finally:
        delivery.close()
        outbox.close()
    assert [r.seq for r in seen] == list(range(c.next_seq)), ops  # each once, in order
    assert all(row == stored[row.pos] or stored[row.pos].delivered_at is not None for row in seen)
    assert all(r.doc == stored[r.pos].doc and r.event_id == stored[r.pos].event_id for r in seen)
