"""Clients follow the stack across a broker crash: `up` restarts it on the ports it had.

The relay (a producer) and the stream worker (a consumer group) keep running through the crash and
the restart, and every event recorded before, during and after reaches the archive.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.capture import KafkaRelay, SqliteOutbox
from bridge.store import SqlEventArchive
from loopline.kafka.topics import ensure_topics
from loopline.stack import down, kafka_settings, up
from loopline.stack.settings import StackSettings
from schemas import Event
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.broker import WorkerProcess, producer_key, wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def settings() -> Iterator[StackSettings]:
    """A stack of this test alone on auto ports, durable broker storage; always brought down."""
    with tempfile.TemporaryDirectory(prefix="loopline-restart-") as folder:
        stack = StackSettings(
            state_dir=Path(folder), port_mode="auto", broker_storage="s3", temporal_ui=False
        )
        yield stack
        down(stack)


def episodes(prefix: str, n: int) -> list[Event]:
    return [e for i in range(n) for e in typical_episode(f"{prefix}-{i}", item_id=f"CLM-{i}").events]


def archived_ids(archive: SqlEventArchive, source: str) -> set[str]:
    """Ids of the archived events from `source` (the detector files edge cases of its own)."""
    return {str(doc["id"]) for doc in archive.iter_structured() if doc.get("source") == source}


def test_the_relay_and_the_stream_worker_deliver_again_after_up_restarts_a_killed_broker(
    settings: StackSettings, tmp_path: Path
) -> None:
    first = up(settings, detach=False).state
    kafka = kafka_settings(first)
    topic, dlq = "restart.events", "restart.dlq"
    ensure_topics(kafka.client_config("admin"), [topic, dlq], partitions=2)
    db_url = f"sqlite:///{tmp_path / 'archive.db'}"
    archive = SqlEventArchive(db_url)
    archive.create_schema()
    outbox = SqliteOutbox(tmp_path / "outbox.db")
    relay_config = {**kafka.client_config("producer"), "reconnect.backoff.max.ms": 300}
    relay = KafkaRelay(
        outbox,
        topic=topic,
        kafka_config=relay_config,
        backoff_max_s=0.3,
        signer=producer_key("loopline://bridge/test"),
    ).start()
    worker = WorkerProcess(
        first.endpoints.bootstrap_servers, db_url, topic, dlq, tmp_path / "worker.log", group="restart"
    )
    try:
        before, during, after = episodes("before", 5), episodes("during", 5), episodes("after", 5)
        source = before[0].source
        outbox.append_many(before)
        wait_until(lambda: archive.count(source=source) >= len(before), "the events before the crash", worker)

        os.kill(first.processes["tansu"].pid, signal.SIGKILL)
        outbox.append_many(during)
        second = up(settings, detach=False)
        assert any("stale" in note for note in second.notes)
        assert second.state.processes["tansu"].pid != first.processes["tansu"].pid
        assert second.state.endpoints == first.endpoints

        outbox.append_many(after)
        total = len(before) + len(during) + len(after)
        wait_until(lambda: archive.count(source=source) >= total, "every event after the restart", worker, 90)
        assert relay.flush(30), relay.metrics()
        assert archived_ids(archive, source) == {e.id for e in before + during + after}
    finally:
        relay.close(timeout=2)
        worker.stop()
        outbox.close()
        archive.engine.dispose()
