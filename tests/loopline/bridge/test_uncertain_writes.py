"""Every uncertain write is its own case: a real bridge process is SIGKILLed with N write-offs in
flight (the live system never answered them); its next start closes each episode with
`episode.interrupted` (effect unknown), and the real worker, reading those events from the real
broker, reports N high edge cases, one per episode, each counted once."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from bridge.audit.event_keys import save_keyring
from bridge.capture import SqliteOutbox
from bridge.store import SqlEpisodeReader, SqlEventArchive
from schemas.codec import from_structured
from tests.bridge.streams.broker import TEST_SOURCES, WorkerProcess, produce, producer_keyring, wait_until
from tests.loopline.bridge.test_shutdown import Bridge

pytestmark = pytest.mark.integration
SOURCE = "loopline://bridge/drain-test"  # drain_child.py's
N = 4


def _in_flight(state: Path, ids: list[str]) -> bool:
    """Whether each episode's last stored event is its write-off going out (read beside the running
    bridge, which holds the outbox's lock)."""
    with closing(sqlite3.connect(f"file:{state / 'outbox.db'}?mode=ro", uri=True)) as conn:
        query = "SELECT doc FROM outbox WHERE episode_id = ? ORDER BY seq DESC LIMIT 1"
        rows = [conn.execute(query, (e,)).fetchone() for e in ids]
    if any(row is None for row in rows):
        return False
    last = [json.loads(row[0]) for row in rows]
    return all(
        e["type"] == "loopline.tool.called.v1" and e["data"]["call"]["name"] == "post_write_off" for e in last
    )


def test_a_crash_with_n_write_offs_in_flight_makes_n_high_edge_cases(
    kafka_config: dict[str, Any], make_topic: Callable[..., str], unique_topic: str, tmp_path: Path
) -> None:
    state = tmp_path / "bridge"
    state.mkdir()
    bridge = Bridge(state, drain_s=5, turn_s=0.05, steps=1, mode="write_off")
    ids = bridge.start(N)
    deadline = time.monotonic() + 60
    while not _in_flight(state, ids):
        assert time.monotonic() < deadline, "the write-offs never went out"
        time.sleep(0.1)
    bridge.proc.kill()  # SIGKILL: every write-off in flight, none answered
    bridge.proc.communicate(timeout=30)
    again = Bridge(state, drain_s=5, turn_s=0.05, steps=1)
    assert sorted(again.recovered) == sorted(ids)
    again.stop(signal.SIGTERM)

    outbox = SqliteOutbox(state / "outbox.db")
    try:
        events = [from_structured(doc) for e in ids for doc in outbox.events(e)]
    finally:
        outbox.close()
    interrupted = [e for e in events if e.type == "loopline.episode.interrupted.v1"]
    assert len(interrupted) == N and all(e.data.effect_unknown for e in interrupted)  # type: ignore[attr-defined]

    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    make_topic(unique_topic, partitions=2)
    make_topic(dlq, partitions=1)
    url = f"sqlite:///{tmp_path}/archive.db"
    archive = SqlEventArchive(url)
    archive.create_schema()
    save_keyring(tmp_path / "event-keys.json", producer_keyring((*TEST_SOURCES, SOURCE)))
    worker = WorkerProcess(bootstrap, url, unique_topic, dlq, tmp_path / "worker.log", group=unique_topic)
    reader = SqlEpisodeReader(archive.engine)
    try:
        produce(bootstrap, unique_topic, events)
        produce(bootstrap, unique_topic, interrupted[:1])  # a redelivery: no new case
        wait_until(lambda: len(reader.list_edge_cases(rule="episode_interrupted")) >= N, "N cases", worker)
        time.sleep(2)  # anything more would show by now
    finally:
        worker.stop()
    cases = reader.list_edge_cases(rule="episode_interrupted")
    assert len(cases) == N
    assert {c.severity for c in cases} == {"high"} and all(c.count == 1 for c in cases)
    assert sorted(c.episode_id for c in cases) == sorted(ids)
