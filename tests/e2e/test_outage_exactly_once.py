"""1,000 episodes captured while the (durable) broker is down for part of the run: once it is back,
every event reaches the SQL archive exactly once, through the relay, Kafka and a streams worker.

The stack is this test's own (s3 storage, fixed ports), so stopping it harms no other test; the
streams worker is a separate process that lives through the outage.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import sqlalchemy as sa

from bridge.capture import CaptureConfig, CaptureService, SqliteOutbox
from bridge.store import SqlEventArchive
from bridge.store.tables import ARCHIVE_TABLE
from loopline.demo.worker import streams_worker
from loopline.kafka.topics import ensure_topics
from loopline.stack import down, kafka_settings, up
from loopline.stack.ports import pick_free_ports
from loopline.stack.settings import StackSettings
from loopline.streams.event_keys import ensure_keys, role_file
from tests.e2e.capture_episodes import record_episodes

pytestmark = [pytest.mark.e2e, pytest.mark.integration]
SOURCE = "loopline://bridge/outage"
TOPIC = "loopline.outage.events.v1"
PORT_FIELDS = (
    "kafka",
    "temporal",
    "temporal_ui",
    "s3",
    "seaweed_master",
    "seaweed_volume",
    "seaweed_filer",
    "seaweed_admin",
)


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[StackSettings]:
    stack = StackSettings(
        state_dir=tmp_path / "stack", port_mode="fixed", ports=pick_free_ports(PORT_FIELDS), temporal_ui=False
    )
    yield stack
    down(stack)


def _archived_ids(db_url: str) -> list[str]:
    with SqlEventArchive(db_url).engine.connect() as conn:
        query = sa.select(ARCHIVE_TABLE.c.event_id).where(ARCHIVE_TABLE.c.source == SOURCE)
        return [row[0] for row in conn.execute(query)]


def test_every_event_reaches_the_archive_exactly_once_across_a_broker_outage(
    settings: StackSettings, tmp_path: Path
) -> None:
    kafka = kafka_settings(up(settings).state)
    ensure_topics(kafka.client_config("admin"), [TOPIC, TOPIC.replace(".events.", ".dlq.")], partitions=4)
    db_url = f"sqlite:///{tmp_path / 'archive.db'}"
    SqlEventArchive(db_url).create_schema()
    vocabulary = tmp_path / "vocabulary.json"
    vocabulary.write_text("{}")
    producer = {
        **kafka.client_config("producer"),
        "message.timeout.ms": 2000,
        "reconnect.backoff.max.ms": 500,
    }
    config = CaptureConfig(
        tenant="acme", source=SOURCE, outbox_path=tmp_path / "outbox.db", vault_url=f"sqlite:///{tmp_path / 'vault.db'}",
        environment="test", unmodelled="keep", topic=TOPIC, kafka=producer,
        event_keys_file=_bridge_key_file(tmp_path, SOURCE),
    )  # fmt: skip
    with ExitStack() as workers:
        workers.enter_context(streams_worker(tmp_path, kafka, db_url, TOPIC, vocabulary))
        capture = CaptureService.open(config)
        try:
            record_episodes(capture, 300)
            _wait_for(db_url, 1200)  # the worker is consuming before the outage begins
            down(settings)  # the broker (and the whole stack) goes away mid-run
            record_episodes(capture, 400)
            assert capture.relay is not None and capture.relay.metrics().pending > 0
            up(settings)  # same ports, same durable storage
            record_episodes(capture, 300)
            assert capture.relay.flush(90), capture.relay.metrics()
        finally:
            capture.close(timeout=5)
        expected = {row.event_id for row in _outbox_rows(tmp_path / "outbox.db")}
        assert len(expected) == 4000
        archived = _wait_for(db_url, len(expected))
    assert len(archived) == len(set(archived)) == len(expected)
    assert set(archived) == expected


def _bridge_key_file(workdir: Path, source: str) -> Path:
    """The relay's own key file (a key for `source`), in the key folder the demo's worker reads."""
    ensure_keys(workdir / "keys", {"bridge": [source]})
    return role_file("bridge", workdir / "keys")


def _wait_for(db_url: str, count: int, timeout_s: float = 120) -> list[str]:
    deadline = time.monotonic() + timeout_s
    archived = _archived_ids(db_url)
    while len(archived) < count and time.monotonic() < deadline:
        time.sleep(0.5)
        archived = _archived_ids(db_url)
    return archived


def _outbox_rows(path: Path) -> list:  # type: ignore[type-arg]
    outbox = SqliteOutbox(path)
    try:
        return outbox.rows()
    finally:
        outbox.close()
