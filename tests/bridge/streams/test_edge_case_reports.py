"""Edge-case reports survive a crash between publish and record, and deleting one is named by the audit."""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from confluent_kafka import Producer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from typer.testing import CliRunner

from bridge.audit.checkpoints import public_key_text
from bridge.store import SqlEpisodeReader, SqlEventArchive, audit_archive
from bridge.streams.app import Outputs, detect_and_report
from bridge.streams.config import StreamsConfig
from bridge.streams.decode import Decoded, decode_message
from bridge.streams.offload import ThreadRunner
from bridge.streams.topic_reader import read_topic
from bridge.streams.work import StreamWork
from loopline.cli import app
from schemas import Event
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.broker import WorkerProcess, produce, wait_until, write_test_keys
from tests.bridge.streams.messages import message


class Crash(Exception):
    """The process dying between two steps."""


def _config(tmp_path: Path, **more: Any) -> StreamsConfig:
    keys, detector = write_test_keys(tmp_path)
    return StreamsConfig(
        db_url=f"sqlite:///{tmp_path}/archive.db", event_keys_file=keys, signing_key_file=detector, **more
    )


def _archive(config: StreamsConfig) -> SqlEventArchive:
    archive = SqlEventArchive(config.db_url)
    archive.create_schema()
    return archive


def _edge_case_ids(archive: SqlEventArchive) -> set[str]:
    return {str(d["id"]) for d in archive.iter_structured() if str(d["episodeid"]).startswith("edgecase:")}


@pytest.mark.integration
async def test_a_crash_between_publishing_an_edge_case_and_recording_it_loses_no_report(
    kafka_config: dict[str, Any], make_topic: Callable[..., str], unique_topic: str, tmp_path: Path
) -> None:
    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    make_topic(unique_topic, partitions=1)
    make_topic(dlq, partitions=1)
    config = _config(tmp_path, events_topic=unique_topic, dlq_topic=dlq)
    archive = _archive(config)
    episode = typical_episode("ep-1").events
    produce(bootstrap, unique_topic, episode)

    work = StreamWork(archive, config)
    producer = Producer({"bootstrap.servers": bootstrap, "broker.address.family": "v4"})

    async def send(
        topic: str, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes]]
    ) -> None:
        producer.produce(topic, key=key, value=value, headers=list(headers))
        assert producer.flush(30) == 0  # acked by the broker, as the app's send waits for

    def crash(reports: list[Event]) -> list[Event]:
        raise Crash("killed after the publish, before the record")

    work.record = crash  # type: ignore[method-assign]
    with pytest.raises(Crash):
        await detect_and_report(ThreadRunner(work), Outputs(config, send), [message(e) for e in episode])
    assert _edge_case_ids(archive) == set()  # never recorded...
    published = [d.event for m in read_topic(bootstrap, unique_topic, idle_timeout_s=3)
                 if isinstance(d := decode_message(m.value, m.headers), Decoded)
                 and d.event.episodeid.startswith("edgecase:")]  # fmt: skip
    assert sorted(e.data.rule for e in published) == ["escalation", "tool_failure.http_5xx"]  # type: ignore[attr-defined]

    # ...but published, MACed with the detector's key: the restarted worker's projector archives them.
    worker = WorkerProcess(
        bootstrap, config.db_url, unique_topic, dlq, tmp_path / "worker.log", group=unique_topic,
        args=["--no-detector"],
    )  # fmt: skip
    try:
        wait_until(
            lambda: _edge_case_ids(archive) == {e.id for e in published}, "the published reports", worker
        )
    finally:
        worker.stop()
    reader = SqlEpisodeReader(archive.engine)
    assert sorted(case.rule for case in reader.list_edge_cases()) == ["escalation", "tool_failure.http_5xx"]
    assert audit_archive(archive).ok


def test_deleting_an_edge_case_is_named_by_audit_verify_against_the_detectors_checkpoints(
    tmp_path: Path,
) -> None:
    key = Ed25519PrivateKey.generate()
    seed = tmp_path / "detector.seed"
    seed.write_text(
        base64.b64encode(key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())).decode()
    )
    folder = tmp_path / "checkpoints"
    config = _config(tmp_path, checkpoint_key_file=seed, checkpoint_dir=folder)
    archive = _archive(config)
    work = StreamWork(archive, config)
    events = typical_episode("ep-1").events
    assert work.project([message(e, i, signed=True) for i, e in enumerate(events)]).appended.inserted == len(
        events
    )
    reports = work.record(work.detect([message(e) for e in events]).reports)
    assert len(reports) == 2 and len(list(folder.glob("checkpoint-*.json"))) == 1

    argv = ["audit", "verify", "--db-url", config.db_url, "--checkpoints", str(folder),
            "--checkpoint-key", public_key_text(key.public_key()), "--event-keys", str(config.event_keys_file),
            "--skip", "checkpoint-topic", "--skip", "event-topic"]  # fmt: skip
    clean = CliRunner().invoke(app, argv)
    assert clean.exit_code == 0, clean.output
    deleted = reports[0].episodeid
    with archive.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM event_archive WHERE episodeid = :s"), {"s": deleted})
    assert audit_archive(archive).ok  # the chains alone cannot tell
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 1
    assert f"{deleted}: stream_deleted" in result.output.replace("\n", "")
