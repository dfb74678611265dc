"""`loopline audit verify` and `loopline replay --from archive` on a real SQLite archive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from bridge.store import ArchiveRecord, SqlEventArchive
from loopline.cli import app
from tests.bridge.store.builders import typical_episode
from tests.bridge.store.snapshot import projection_snapshot

CHAINS_AND_PROJECTIONS = ["--skip", "checkpoints", "--skip", "signatures", "--skip", "event-topic"]
"""These archives are written without producers' signatures or checkpoints, and not from a topic."""


def _archive(tmp_path: Path) -> tuple[str, SqlEventArchive]:
    url = f"sqlite:///{tmp_path}/archive.db"
    archive = SqlEventArchive(url)
    archive.create_schema()
    archive.append([ArchiveRecord.of(e) for i in range(3) for e in typical_episode(f"ep-{i}").events])
    return url, archive


def test_audit_verify_passes_an_untouched_archive(tmp_path: Path) -> None:
    url, _ = _archive(tmp_path)
    result = CliRunner().invoke(app, ["audit", "verify", "--db-url", url, *CHAINS_AND_PROJECTIONS])
    assert result.exit_code == 0, result.output
    assert "3 streams, 30 events" in result.output


def test_audit_verify_names_the_one_edited_event_and_exits_1(tmp_path: Path) -> None:
    url, archive = _archive(tmp_path)
    with archive.engine.begin() as conn:
        row = conn.execute(
            sa.text("SELECT event_id, structured FROM event_archive WHERE episodeid = 'ep-1' AND seq = 9")
        ).one()
        doc = json.loads(row.structured)
        doc["data"]["kind"] = "denied"  # the payer paid; someone rewrites history
        conn.execute(
            sa.text("UPDATE event_archive SET structured = :s WHERE event_id = :id"),
            {"s": json.dumps(doc), "id": row.event_id},
        )
    result = CliRunner().invoke(app, ["audit", "verify", "--db-url", url, *CHAINS_AND_PROJECTIONS])
    assert result.exit_code == 1
    assert "stream ep-1" in result.output and row.event_id in result.output and "seq=9" in result.output
    assert "1 of 3 streams" in result.output


def test_replay_from_the_archive_rebuilds_identical_projections(tmp_path: Path) -> None:
    url, archive = _archive(tmp_path)
    before = projection_snapshot(archive.engine)
    with archive.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM proj_episodes"))
        conn.execute(sa.text("UPDATE proj_tool_error_rates SET calls = 999"))
    result = CliRunner().invoke(app, ["replay", "--db-url", url])
    assert result.exit_code == 0, result.output
    assert "projected 30 events" in result.output
    assert projection_snapshot(archive.engine) == before


def test_a_bad_database_url_is_one_clear_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["audit", "verify", "--db-url", "mysql://nope"])
    assert result.exit_code == 1
    assert "invalid settings" in result.output


def test_settings_compose_the_streams_config_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loopline.streams.settings import StreamsSettings

    vocabulary = tmp_path / "vocabulary.json"
    vocabulary.write_text(json.dumps({"carc": ["16", "45"], "group_code": ["CO"]}))
    monkeypatch.setenv("LOOPLINE_DB_URL", f"sqlite:///{tmp_path}/a.db")
    monkeypatch.setenv("LOOPLINE_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:19999")
    monkeypatch.setenv("LOOPLINE_KNOWN_VOCABULARY_FILE", str(vocabulary))
    monkeypatch.setenv("LOOPLINE_STREAMS_BATCH_SIZE", "77")
    monkeypatch.delenv("LOOPLINE_KAFKA_SESSION_TIMEOUT_MS", raising=False)
    config = StreamsSettings().streams_config()
    assert (config.db_url, config.bootstrap_servers, config.batch_size) == (
        f"sqlite:///{tmp_path}/a.db",
        "127.0.0.1:19999",
        77,
    )
    assert config.detect.known_vocabulary == {
        "carc": frozenset({"16", "45"}),
        "group_code": frozenset({"CO"}),
    }
    assert config.session_timeout_s == 6.0


def test_a_broken_vocabulary_file_is_named_in_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loopline.streams.settings import StreamsSettings

    bad = tmp_path / "vocabulary.json"
    bad.write_text('{"carc": "16"}')
    monkeypatch.setenv("LOOPLINE_KNOWN_VOCABULARY_FILE", str(bad))
    with pytest.raises(ValueError, match=r"vocabulary\.json"):
        StreamsSettings().streams_config()


def test_audit_verify_of_a_database_without_an_archive_says_so(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["audit", "verify", "--db-url", f"sqlite:///{tmp_path}/empty.db"])
    assert result.exit_code == 1
    assert "no event archive" in result.output


def test_audit_verify_with_checkpoints_names_a_truncated_tail_and_a_deleted_stream(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from bridge.audit.checkpoints import public_key_text, sign_checkpoint

    url, archive = _archive(tmp_path)
    key = Ed25519PrivateKey.generate()
    heads = {f"ep-{i}": (9, str(archive.head_at(f"ep-{i}", 9)[1])) for i in range(3)}
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / "checkpoint-000000000000001.json").write_text(
        json.dumps(sign_checkpoint(heads, source="s", at=1.0, key=key))
    )
    argv = ["audit", "verify", "--db-url", url, "--checkpoints", str(folder), "--skip", "signatures",
            "--skip", "checkpoint-topic", "--skip", "event-topic"]  # fmt: skip
    clean = CliRunner().invoke(app, [*argv, "--checkpoint-key", public_key_text(key.public_key())])
    assert clean.exit_code == 0, clean.output
    with archive.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM event_archive WHERE episodeid = 'ep-0' AND seq = 9"))
        conn.execute(sa.text("DELETE FROM event_archive WHERE episodeid = 'ep-2'"))
    result = CliRunner().invoke(app, [*argv, "--checkpoint-key", public_key_text(key.public_key())])
    assert result.exit_code == 1
    assert "ep-0: tail_truncated" in result.output and "ep-2: stream_deleted" in result.output
