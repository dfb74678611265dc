"""The journal in front of the outbox's SQLite tables: frames, torn tails, generations, recovery
after SIGKILL, failures of the disk on either side, and back-pressure."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.capture import CaptureUnavailable, SqliteOutbox, StreamConflict
from bridge.capture.journal import (
    HEADER_SIZE,
    SIZE,
    Journal,
    JournalCorrupt,
    decode_frames,
    encode_row,
    filesystem_type,
    frames,
    maps_in_place,
)
from schemas import EpisodeChain, Event, verify_chain
from schemas.events import Escalated

REPO = Path(__file__).resolve().parents[3]
printable = st.text(st.characters(min_codepoint=32, max_codepoint=0xD7FF), max_size=40)
rows = st.tuples(
    printable,
    st.integers(0, 2**62),
    printable,
    printable,
    st.binary(max_size=3000),
    st.floats(allow_nan=False, allow_infinity=False),
)


def chain(episode: str = "ep-1", next_seq: int = 0) -> EpisodeChain:
    return EpisodeChain(episode, tenant="clinic-a", source="loopline://tests/capture", next_seq=next_seq)


def escalation(n: int) -> Escalated:
    return Escalated(reason=f"reason {n}", trigger="rule")


@settings(max_examples=60, deadline=None)
@given(st.lists(rows, max_size=6), st.integers(0, 2**64 - 1))
def test_frames_give_back_exactly_the_rows_written(
    written: list[tuple[object, ...]], generation: int
) -> None:
    buffer = b"\0" * HEADER_SIZE + b"".join(encode_row(row, generation) for row in written)
    decoded, end = decode_frames(buffer, HEADER_SIZE, generation)
    assert decoded == written
    assert end == len(buffer)


def row(n: int, doc: bytes = b"{}") -> tuple[object, ...]:
    return ("ep-1", n, f"id-{n}", f"h{n}", doc, 1.5)


def test_a_torn_last_frame_is_ignored_at_every_byte_and_writing_goes_on(tmp_path: Path) -> None:
    whole = [row(n, b'{"n": %d}' % n) for n in range(3)]
    torn = encode_row(row(3, b"x" * 50), 0)
    for cut in range(1, len(torn)):
        path = tmp_path / f"j{cut}"
        journal, _ = Journal.open(path, 0, 0)
        for r in whole:
            journal.append(encode_row(r, 0))
        end = journal.end
        journal.close()
        with path.open("r+b") as file:
            file.seek(end)
            file.write(torn[:cut])  # the process died inside the write
        journal, recovered = Journal.open(path, 0, HEADER_SIZE)
        assert recovered == whole and journal.end == end, cut
        journal.append(encode_row(("ep-1", 3, "id-3b", "h3b", b"{}", 3.0), 0))
        journal.close()
        assert [r[2] for r in frames(path)] == ["id-0", "id-1", "id-2", "id-3b"]


def test_a_flipped_byte_ends_the_journal_at_the_frame_before(tmp_path: Path) -> None:
    path = tmp_path / "j"
    journal, _ = Journal.open(path, 0, 0)
    for n in range(3):
        journal.append(encode_row(row(n, b"payload"), 0))
    end = journal.end
    journal.close()
    data = bytearray(path.read_bytes())
    data[end - 3] ^= 0xFF  # inside the last frame's body: its CRC no longer matches
    path.write_bytes(bytes(data))
    _, recovered = Journal.open(path, 0, HEADER_SIZE)
    assert [r[1] for r in recovered] == [0, 1]


def test_generations_say_what_of_the_file_is_new(tmp_path: Path) -> None:
    path = tmp_path / "j"
    journal, _ = Journal.open(path, 4, 0)
    assert path.stat().st_size == SIZE  # filled once: later writes land in place
    offsets = []
    for n in range(3):
        journal.append(encode_row(row(n), 4))
        offsets.append(journal.end)
    journal.close()
    # Same generation: what comes after the stored offset.
    assert [r[1] for r in Journal.open(path, 4, offsets[0])[1]] == [1, 2]
    # The file is newer (reset, then the process died before SQLite recorded it): all of it.
    assert [r[1] for r in Journal.open(path, 3, offsets[2])[1]] == [0, 1, 2]
    # The file is older: it was all ingested.
    journal, recovered = Journal.open(path, 5, HEADER_SIZE)
    assert recovered == [] and journal.generation == 5 and journal.end == HEADER_SIZE
    # A new cycle writes over the old one's frames; those are never read as its own.
    journal.append(encode_row(row(7), 5))
    journal.close()
    assert [r[1] for r in Journal.open(path, 5, HEADER_SIZE)[1]] == [7]


def test_a_restart_keeps_the_rows_not_yet_ingested_whenever_the_process_dies(tmp_path: Path) -> None:
    path = tmp_path / "j"
    journal, _ = Journal.open(path, 0, 0)
    for n in range(5):  # ingested
        journal.append(encode_row(row(n), 0))
    ingested = journal.end
    late = [row(n) for n in (5, 6)]  # appended while the ingest ran
    for r in late:
        journal.append(encode_row(r, 0))
    kept = [encode_row(r, 1) for r in late]
    # Died after writing the kept frames in front, before the new header: the old cycle still counts.
    with path.open("r+b") as file:
        file.seek(HEADER_SIZE)
        file.write(b"".join(kept))
    assert Journal.open(path, 0, ingested)[1] == late
    # Died after the new header, before SQLite recorded the new generation: the new cycle counts.
    journal.restart(1, kept)
    journal.close()
    assert Journal.open(path, 0, ingested)[1] == late
    reopened, rows = Journal.open(path, 1, HEADER_SIZE)
    assert rows == late and reopened.end == HEADER_SIZE + sum(map(len, kept))
    reopened.close()


def test_a_restart_refuses_frames_that_would_overwrite_themselves(tmp_path: Path) -> None:
    journal, _ = Journal.open(tmp_path / "j", 0, 0)
    journal.append(encode_row(row(0), 0))
    with pytest.raises(ValueError, match="overwrite"):
        journal.restart(1, [encode_row(row(0), 1)])
    journal.close()


def test_a_restart_gives_back_space_the_file_grew_into(tmp_path: Path) -> None:
    path = tmp_path / "j"
    journal, _ = Journal.open(path, 0, 0)
    big = encode_row(row(0, b"x" * (1024 * 1024)), 0)
    for _ in range(2 * SIZE // len(big) + 2):  # SQLite fell behind: past the filled size
        journal.append(big)
    assert path.stat().st_size > 2 * SIZE
    journal.restart(1)
    assert path.stat().st_size == SIZE and journal.end == HEADER_SIZE
    journal.close()
    assert list(frames(path)) == []


def test_a_file_that_is_not_a_journal_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db.journal"
    path.write_bytes(b"something else entirely")
    with pytest.raises(JournalCorrupt):
        Journal.open(path, 0, 0)
    assert path.read_bytes() == b"something else entirely"


def test_retries_and_forks_are_told_apart_before_and_after_ingest(tmp_path: Path) -> None:
    with SqliteOutbox(tmp_path / "outbox.db") as outbox:
        c = chain()
        events = [c.append(escalation(n)) for n in range(4)]
        for event in events:
            outbox.append(event)
        for ingested in (False, True):
            if ingested:
                outbox.pending_count()  # a read ingests everything journaled
            for event in events:
                outbox.append(event)  # a retry: no-op
                rival = chain(next_seq=event.seq).append(escalation(99))
                with pytest.raises(StreamConflict):
                    outbox.append(rival)
                with pytest.raises(StreamConflict):
                    outbox.append_many([rival])
        assert [(r.event_id, r.seq) for r in outbox.rows("ep-1")] == [(e.id, e.seq) for e in events]


def test_forks_are_caught_across_rebuilds_of_the_remembered_heads_and_a_reopen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bridge.capture.outbox.HEADS_LIMIT", 2)
    chains = {name: chain(name) for name in ("ep-a", "ep-b", "ep-c")}
    appended: dict[str, list[Event]] = {name: [] for name in chains}
    with SqliteOutbox(tmp_path / "outbox.db") as outbox:
        for _ in range(3):
            for name, c in chains.items():
                event = c.append(escalation(c.next_seq))
                outbox.append(event)
                appended[name].append(event)
            outbox.last_pos()  # an ingest: three streams are past the limit, so they are rebuilt
        assert outbox._heads_limit == 6
        for name in chains:
            with pytest.raises(StreamConflict):
                outbox.append(chain(name, next_seq=1).append(escalation(7)))
    with SqliteOutbox(tmp_path / "outbox.db") as reopened:  # the heads come back from SQLite
        assert reopened._heads == {name: 2 for name in chains}
        for name, c in chains.items():
            with pytest.raises(StreamConflict):
                reopened.append(chain(name, next_seq=2).append(escalation(7)))
            reopened.append(appended[name][-1])  # a retry of the newest: nothing happens
            reopened.append(c.append(escalation(3)))  # the stream goes on
            assert [r.seq for r in reopened.rows(name)] == [0, 1, 2, 3]


CHILD = textwrap.dedent(
    """
    import os, signal, sys, time
    from bridge.capture import SqliteOutbox
    from bridge.capture.outbox_rows import DeliveryMark
    from schemas import EpisodeChain
    from schemas.events import Escalated

    import bridge.capture.outbox
    bridge.capture.outbox.INGEST_LINGER_S = 60.0  # the last appends stay journaled
    bridge.capture.outbox.INGEST_BACKLOG = 10**6

    path, first, then = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    outbox = SqliteOutbox(path)
    c = EpisodeChain("ep-1", tenant="clinic-a", source="loopline://tests/capture")
    for n in range(first):
        outbox.append(c.append(Escalated(reason=f"r{n}", trigger="rule")))
    outbox.last_pos()  # a read: the journaled rows are ingested
    rows = outbox.pending(0, first)
    outbox.mark_delivered([DeliveryMark(r.pos, 0, r.pos, 1.0) for r in rows])
    print("pruned", outbox.prune(time.time() + 10), flush=True)
    for n in range(first, first + then):
        outbox.append(c.append(Escalated(reason=f"r{n}", trigger="rule")))
    print("journaled", len(outbox._unflushed), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def killed_child(path: Path, *, delivered: int, journaled: int) -> dict[str, str]:
    """Run CHILD on the outbox at `path` until it SIGKILLs itself; what it said, by word."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(delivered), str(journaled)],
        capture_output=True, text=True, cwd=REPO, timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr
    return dict(line.split() for line in done.stdout.splitlines())


def test_sigkill_loses_no_journaled_event_and_resurrects_no_pruned_one(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    said = killed_child(path, delivered=50, journaled=40)
    assert int(said["pruned"]) == 49  # all but the newest delivered row
    assert int(said["journaled"]) == 40  # none of them was in SQLite when the process died
    with SqliteOutbox(path) as outbox:
        stored = outbox.rows("ep-1")
        assert [r.seq for r in stored] == list(range(49, 90))  # the kept newest, then every append
        assert verify_chain([r.structured() for r in stored], start_seq=49) is None
        assert outbox.pending_count() == 40
        outbox.append(chain(next_seq=90).append(escalation(90)))  # the stream goes on
    with SqliteOutbox(path) as reopened:  # nothing is ingested twice
        assert [r.seq for r in reopened.rows("ep-1")] == list(range(49, 91))


def test_a_failed_journal_write_is_a_clear_capture_error_that_leaves_no_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Frames inside the file's first SIZE bytes are copied into its mapping, which cannot fail;
    # past it (SQLite far behind) they are written with pwrite, which can. A small SIZE gets there.
    monkeypatch.setattr("bridge.capture.journal.SIZE", 4096)
    with SqliteOutbox(tmp_path / "outbox.db") as outbox:
        journal = outbox._journal
        assert journal is not None
        c = chain()
        while journal.end <= 4096:
            outbox.append(c.append(escalation(c.next_seq)))
        writable = journal._fd
        journal._fd = os.open(journal.path, os.O_RDONLY)  # every write now fails (EBADF)
        seq = c.next_seq
        with pytest.raises(CaptureUnavailable, match="journal"):
            outbox.append(c.append(escalation(seq)))
        os.close(journal._fd)
        journal._fd = writable
        outbox.append(chain(next_seq=seq).append(escalation(seq)))  # the same position, a new event
        assert [r[1] for r in frames(journal.path)] == list(range(seq + 1))  # mapped, then written
        assert [r.seq for r in outbox.rows("ep-1")] == list(range(seq + 1))
    assert [r[1] for r in frames(tmp_path / "outbox.db.journal")] == []  # emptied at close


def test_where_files_cannot_be_mapped_every_frame_is_written_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENODEV, "this filesystem cannot map files")

    monkeypatch.setattr("bridge.capture.journal.mmap.mmap", refuse)
    path = tmp_path / "outbox.db"
    c = chain()
    with SqliteOutbox(path) as outbox:
        assert outbox._journal is not None and outbox._journal._map is None
        for n in range(5):
            outbox.append(c.append(escalation(n)))
        assert [r[1] for r in frames(f"{path}.journal")] == [0, 1, 2, 3, 4]
        assert [r.seq for r in outbox.rows("ep-1")] == [0, 1, 2, 3, 4]


MOUNTS = """/dev/vda / ext4 rw,relatime 0 0
tmpfs /dev/shm tmpfs rw 0 0
/dev/vdb /srv/data btrfs rw 0 0
/dev/vdc /srv/data/fast xfs rw 0 0
/dev/vdd /srv/my\\040outbox zfs rw 0 0
/dev/vde /srv/data/fast ext4 rw 0 0
"""


def test_the_filesystem_of_a_path_is_its_longest_mount_point_and_the_latest_mount_of_it() -> None:
    assert filesystem_type("/srv/data/outbox.db.journal", MOUNTS) == "btrfs"
    assert filesystem_type("/srv/data/fast/outbox.db.journal", MOUNTS) == "ext4"  # mounted over xfs
    assert filesystem_type("/srv/data-old/outbox.db.journal", MOUNTS) == "ext4"  # not under /srv/data
    assert filesystem_type("/srv/my outbox/outbox.db.journal", MOUNTS) == "zfs"  # an escaped space
    assert filesystem_type("/dev/shm/j", MOUNTS) == "tmpfs"
    assert filesystem_type("/anything", "") is None


def test_a_journal_is_mapped_only_where_blocks_are_overwritten_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal, _ = Journal.open(tmp_path / "a.journal", 0, 0)
    try:
        assert (journal._map is not None) == maps_in_place(tmp_path)
    finally:
        journal.close()
    monkeypatch.setattr("bridge.capture.journal.MAPPED_FILESYSTEMS", frozenset({"btrfs"}))  # not ours
    assert not maps_in_place(tmp_path)
    journal, _ = Journal.open(tmp_path / "b.journal", 0, 0)
    try:
        assert journal._map is None
        rows = [("ep-1", n, f"e{n}", "h" * 64, b"{}", 1.0) for n in range(3)]
        for row in rows:
            journal.append(encode_row(row, 0))
        assert list(frames(journal.path)) == rows
    finally:
        journal.close()


def test_when_sqlite_is_full_appends_stay_journaled_and_are_ingested_once_there_is_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bridge.capture.outbox.UNFLUSHED_LIMIT", 30)
    with SqliteOutbox(tmp_path / "outbox.db") as outbox:
        c = chain()
        outbox.append(c.append(escalation(0)))
        outbox.pending_count()
        pages = outbox._conn.execute("PRAGMA page_count").fetchone()[0]
        outbox._conn.execute(f"PRAGMA max_page_count={pages}")  # SQLite's disk is full from here on
        big = Escalated(reason="x" * 3000, trigger="rule")
        with pytest.raises(CaptureUnavailable, match="wait to be ingested"):
            for _ in range(100):
                outbox.append(c.append(big))
        deadline = time.monotonic() + 10
        while outbox.ingest_error is None and time.monotonic() < deadline:
            time.sleep(0.01)  # the ingester's next try
        assert outbox.ingest_error is not None and "full" in outbox.ingest_error
        with pytest.raises(CaptureUnavailable, match="full"):
            outbox.rows("ep-1")  # a read cannot see the journaled rows, so it does not pretend to
        c.next_seq -= 1  # the refused event took no position
        c.prevhash = outbox._unflushed[-1][3]
        outbox._conn.execute("PRAGMA max_page_count=1073741823")  # room again
        outbox.append(c.append(escalation(c.next_seq)))
        stored = outbox.events("ep-1")
        assert [e["seq"] for e in stored] == list(range(c.next_seq))
        assert verify_chain(stored) is None


def test_the_journal_starts_over_as_it_is_ingested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bridge.capture.outbox.JOURNAL_RESET_BYTES", 4096)
    path = tmp_path / "outbox.db"
    c, furthest = chain(), 0
    with SqliteOutbox(path) as outbox:
        for n in range(300):
            outbox.append(c.append(escalation(n)))
            journal = outbox._journal
            assert journal is not None
            furthest = max(furthest, journal.end)
            if n % 10 == 0:
                outbox.pending_count()  # ingests; past 4 KB the journal starts over
        assert journal.generation > 5
    assert furthest < 4096 + 11 * 1024
    assert (tmp_path / "outbox.db.journal").stat().st_size == SIZE
    with SqliteOutbox(path) as reopened:  # nothing is read twice from the old cycles' frames
        assert [r.seq for r in reopened.rows("ep-1")] == list(range(300))


def test_a_journal_replayed_over_rows_already_stored_adds_only_what_is_new(tmp_path: Path) -> None:
    # A power cut can take SQLite's record of how far the journal was ingested while the journal
    # file keeps its frames: they are then read again, and the ones already stored are skipped.
    path = tmp_path / "outbox.db"
    c = chain()
    events = [c.append(escalation(n)) for n in range(5)]
    with SqliteOutbox(path) as outbox:
        for event in events[:3]:
            outbox.append(event)
        assert outbox.last_pos() == 3  # ingested
    with SqliteOutbox(path, journal=False) as reader:
        stored = {r.event_id: r for r in reader.rows("ep-1")}
    journal_file = Path(f"{path}.journal")
    journal, _ = Journal.open(journal_file, 10**6, 0)  # a generation newer than the stored one
    for event in events:  # three already stored, two new
        kept = stored.get(event.id)
        doc = kept.doc if kept else b"{}"
        journal.append(encode_row((event.episodeid, event.seq, event.id, event.hash, doc, 1.0), 10**6))
    journal.close()
    with SqliteOutbox(path) as reopened:
        rows = reopened.rows("ep-1")
        assert [(r.seq, r.event_id) for r in rows] == [(e.seq, e.id) for e in events]
        assert [r.pos for r in rows] == [1, 2, 3, 4, 5]


def test_threads_appending_through_ingests_and_restarts_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bridge.capture.outbox.JOURNAL_RESET_BYTES", 8192)
    monkeypatch.setattr("bridge.capture.outbox.INGEST_LINGER_S", 0.001)
    path = tmp_path / "outbox.db"
    outbox = SqliteOutbox(path)
    names = [f"ep-{n}" for n in range(4)]

    def record(name: str) -> None:
        c = chain(name)
        for n in range(400):
            outbox.append(c.append(escalation(n)))
            if n % 10 == 0:  # an agent waits on its model now and then: the ingester runs meanwhile
                time.sleep(0.001)

    threads = [threading.Thread(target=record, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    journal = outbox._journal
    assert journal is not None and journal.generation > 3  # it started over while appends went on
    outbox._closed = True  # as if the process died: no last ingest at close
    outbox._stopping.set()
    outbox._ingest_wanted.set()
    outbox._ingester.join()
    outbox._checkpointer.close()
    outbox._conn.close()
    journal.close()
    with SqliteOutbox(path) as reopened:
        for name in names:
            stored = reopened.events(name)
            assert [e["seq"] for e in stored] == list(range(400)), name
            assert verify_chain(stored) is None


def test_an_append_that_finds_the_ingester_far_behind_ingests_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bridge.capture.outbox.INGEST_BACKLOG", 5)
    monkeypatch.setattr("bridge.capture.outbox.INGEST_LINGER_S", 60.0)  # the thread never gets to it
    with SqliteOutbox(tmp_path / "outbox.db") as outbox:
        c = chain()
        for n in range(4):
            outbox.append(c.append(escalation(n)))
        assert len(outbox._unflushed) == 4 and outbox.commits == 0
        outbox.append(c.append(escalation(4)))  # the fifth: it moves all five into SQLite
        assert outbox._unflushed == [] and outbox.commits == 1
        assert [r.seq for r in outbox.pending(0, 10)] == [0, 1, 2, 3, 4]  # the relay sees them


@pytest.mark.parametrize("durability", ["process", "power"])
def test_an_outbox_opened_without_its_journal_still_stores_what_the_journal_holds(
    tmp_path: Path, durability: str
) -> None:
    path = tmp_path / "outbox.db"
    killed_child(path, delivered=0, journaled=5)
    with SqliteOutbox(path, durability=durability, journal=False) as outbox:  # type: ignore[arg-type]
        assert [r.seq for r in outbox.rows("ep-1")] == [0, 1, 2, 3, 4]
        outbox.append(chain(next_seq=5).append(escalation(5)))
    with SqliteOutbox(path) as reopened:  # and the journal, used again, holds nothing stale
        assert [r.seq for r in reopened.rows("ep-1")] == [0, 1, 2, 3, 4, 5]
