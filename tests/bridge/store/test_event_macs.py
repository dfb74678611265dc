"""The archive keeps each event's producer MAC, so an auditor with the keys names an event that was
written into the archive database around the stream worker, though its hash chain is intact."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bridge.store import ArchiveRecord, SqlEventArchive, audit_archive
from bridge.store.audit import audit_macs
from bridge.streams.config import StreamsConfig
from bridge.streams.work import StreamWork
from loopline.cli import app
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.broker import producer_keyring, write_test_keys
from tests.bridge.streams.messages import message


def test_an_event_appended_to_the_archive_around_the_worker_is_named_by_the_audit(tmp_path: Path) -> None:
    keys, detector = write_test_keys(tmp_path)
    config = StreamsConfig(
        db_url=f"sqlite:///{tmp_path}/archive.db", event_keys_file=keys, signing_key_file=detector
    )
    archive = SqlEventArchive(config.db_url)
    archive.create_schema()
    work = StreamWork(archive, config)
    episode = typical_episode("ep-1")
    work.project([message(e, i, signed=True) for i, e in enumerate(episode.events)])
    assert (
        len(work.record(work.detect([message(e) for e in episode.events]).reports)) == 2
    )  # the detector's own
    argv = [
        "audit",
        "verify",
        "--db-url",
        config.db_url,
        "--event-keys",
        str(keys),
        "--skip",
        "checkpoints",
        "--skip",
        "event-topic",
    ]
    clean = CliRunner().invoke(app, argv)
    assert clean.exit_code == 0 and audit_macs(archive, producer_keyring()) == [], clean.output

    forged = episode.outcome("paid", amount="999999.00")  # chained right after the real tail
    archive.append([ArchiveRecord.of(forged)])  # what a writer of the database could do
    assert audit_archive(archive).ok  # the chain alone cannot tell
    (finding,) = audit_macs(archive, producer_keyring())
    assert finding.startswith(f"stream ep-1 seq {forged.seq}: unsigned")
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 1 and "unsigned" in result.output
