"""Release decisions reach the archive through Kafka like every other producer's events: `loopline
adapters ... --publish` sends them signed with the release role's own key, the stream worker verifies
them with its public key and archives them, and the signature audit finds nothing to report."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bridge.audit.event_keys import load_keyring
from bridge.store import SqlEventArchive
from bridge.store.audit import audit_macs
from loopline.cli import app
from loopline.demo.worker import streams_worker
from loopline.kafka.topics import ensure_topics
from loopline.streams.event_keys import ensure_keys, role_file
from tests.conftest import StackHandle
from tests.loopline.gated import gated_adapter
from training.release.manager import SOURCE

pytestmark = pytest.mark.integration


def test_release_decisions_published_with_the_release_key_are_archived_and_pass_the_mac_audit(
    tmp_path: Path, stack: StackHandle, unique_topic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    topic, db_url = f"{unique_topic}.events.v1", f"sqlite:///{tmp_path / 'archive.db'}"
    ensure_topics(stack.kafka.client_config("admin"), [topic, topic.replace(".events.", ".dlq.")])
    public = ensure_keys(tmp_path / "keys")  # the folder the demo's worker reads (streams_worker)
    for name, value in {
        "LOOPLINE_RELEASE_KEY_FILE": str(role_file("release", tmp_path / "keys")), "LOOPLINE_EVENTS_TOPIC": topic,
        "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": stack.kafka.bootstrap_servers,
        "LOOPLINE_KAFKA_EMBEDDED": "true" if stack.kafka.embedded else "false",
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    state, release_db = tmp_path / "state", f"sqlite:///{tmp_path / 'release.db'}"
    gated_adapter(state, "cycle-1", db_url=release_db)

    def adapters(*args: str) -> None:
        result = CliRunner().invoke(
            app, ["adapters", *args, "--state", str(state), "--db-url", release_db, "--publish"]
        )
        assert result.exit_code == 0, result.output

    vocabulary = tmp_path / "vocabulary.json"
    vocabulary.write_text("{}")
    with streams_worker(tmp_path, stack.kafka, db_url, topic, vocabulary):
        adapters("register", "cycle-1")
        adapters("canary", "cycle-1", "--share", "0.2")
        adapters("rollback", "cycle-1", "--reason", "complaints")
        archive = SqlEventArchive(db_url)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if archive.exists() and archive.count(source=SOURCE) >= 4:
                break
            time.sleep(0.5)
    docs = [doc for doc in archive.iter_structured(stream="adapter:cycle-1")]
    assert [d["type"] for d in docs] == [
        "loopline.adapter.evaluated.v1", "loopline.adapter.registered.v1", "loopline.adapter.deployed.v1",
        "loopline.adapter.rolled_back.v1",
    ]  # fmt: skip
    assert audit_macs(archive, load_keyring(public)) == []
