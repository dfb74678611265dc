"""The relay in a child process, against the real broker: same delivery as the thread, and a child
that never outlives the process whose outbox it drains."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bridge.capture import ProcessRelay, SqliteOutbox
from bridge.capture.relay import RELAY_NICE
from bridge.recording import EpisodeRecorder
from schemas import from_kafka, to_kafka
from tests.bridge.capture.brokers import create_topic, read_topic
from tests.bridge.capture.test_capture_relay_kafka import record_many

pytestmark = pytest.mark.integration

MakeRecorder = Callable[..., EpisodeRecorder]
REPO = Path(__file__).parents[3]


def test_the_relay_process_delivers_what_is_appended_before_and_while_it_runs(
    kafka_config: dict[str, Any], unique_topic: str, make_recorder: MakeRecorder, outbox: SqliteOutbox
) -> None:
    create_topic(kafka_config, unique_topic)
    before = record_many(make_recorder, outbox, "before", 3)  # a backlog: read from SQLite
    relay = ProcessRelay(outbox, topic=unique_topic, kafka_config=kafka_config).start()
    try:
        during = record_many(make_recorder, outbox, "during", 3)  # fresh rows: served from memory
        assert relay.flush(60)
        assert relay.metrics().pending == 0
        assert relay.pid is not None  # background work, niced below the agents' threads
        expected = min(19, os.getpriority(os.PRIO_PROCESS, 0) + RELAY_NICE)
        assert os.getpriority(os.PRIO_PROCESS, relay.pid) == expected
    finally:
        assert relay.close(30)
    appended = before + during
    metrics = relay.metrics()
    assert (metrics.delivered, metrics.failed, metrics.running) == (len(appended), 0, False)

    consumed = read_topic(kafka_config, unique_topic, {e.id for e in appended})
    by_id = {msg.event_id: msg for msg in consumed}
    assert set(by_id) == {e.id for e in appended}
    for event in appended:
        msg, record = by_id[event.id], to_kafka(event)
        assert (msg.key, msg.value, msg.headers) == (record.key, record.value, record.headers)
        assert from_kafka(msg.value, msg.headers) == event
    rows = {row.event_id: row for row in outbox.rows()}
    assert all(rows[m.event_id].offset == m.offset for m in consumed)  # marked in this process


def test_a_relay_process_that_dies_is_replaced_and_its_successor_delivers_everything(
    kafka_config: dict[str, Any], unique_topic: str, make_recorder: MakeRecorder, outbox: SqliteOutbox
) -> None:
    create_topic(kafka_config, unique_topic)
    relay = ProcessRelay(outbox, topic=unique_topic, kafka_config=kafka_config).start()
    try:
        before = record_many(make_recorder, outbox, "before", 2)
        assert relay.flush(60)
        first = relay.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)  # an OOM kill, say
        during = record_many(make_recorder, outbox, "during", 2)  # appended while it is down
        assert relay.flush(60)
        assert relay.pid not in (None, first)
        metrics = relay.metrics()
        assert (metrics.running, metrics.relay_restarts, metrics.pending) == (True, 1, 0)
    finally:
        assert relay.close(30)
    appended = before + during
    consumed = read_topic(kafka_config, unique_topic, {e.id for e in appended})
    assert {m.event_id for m in consumed} == {e.id for e in appended}


def test_without_restart_a_dead_relay_process_shows_in_metrics_and_leaves_rows_undelivered(
    make_recorder: MakeRecorder, outbox: SqliteOutbox
) -> None:
    # A broker nobody listens on: nothing can be delivered, so the rows must stay pending.
    relay = ProcessRelay(
        outbox, topic="t", kafka_config={"bootstrap.servers": "127.0.0.1:9"}, restart=False
    ).start()
    appended = record_many(make_recorder, outbox, "ep", 1)
    assert relay.metrics().running
    pid = relay.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while relay.metrics().running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not relay.metrics().running
    assert relay.flush(5) is False
    assert relay.close(1) is False
    assert outbox.pending_count() == len(appended)


CAPTURING_PARENT = """
import sys, time
from bridge.capture import ProcessRelay, SqliteOutbox
outbox = SqliteOutbox(sys.argv[1])
relay = ProcessRelay(outbox, topic="t", kafka_config={"bootstrap.servers": "127.0.0.1:9"}).start()
while relay.metrics().running is False:
    time.sleep(0.05)
print(relay.pid, flush=True)
time.sleep(600)
"""


def test_the_relay_process_exits_when_its_capturing_process_is_killed(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", CAPTURING_PARENT, str(tmp_path / "outbox.db")],
        stdout=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert _alive(child)
        parent.kill()  # SIGKILL: no atexit, no daemon-process cleanup
        parent.wait(10)
        deadline = time.monotonic() + 15
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(child), "the relay process outlived the process whose outbox it drains"
    finally:
        parent.kill()
        parent.wait(10)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"  # a zombie has exited; only its entry is left
    except FileNotFoundError:
        return False
