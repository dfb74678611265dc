"""The tamper battery: an archive written by a real bridge capture and the real worker over the real
broker, with the keys `loopline up` made (each producer's own, the checkpoint keys), then altered
one way at a time by someone who can write the database and holds a producer's key. `loopline
audit verify` with its defaults (the checkpoint files, and the checkpoint topic beside the events
topic, where the bridge and the detector anchor theirs) names every alteration; the untouched
archive passes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from confluent_kafka import Producer
from pydantic import SecretStr
from typer.testing import CliRunner

from bridge.audit.anchor import anchored_checkpoints
from bridge.audit.event_keys import EventKey, load_keyring
from bridge.capture import CaptureConfig, CaptureService
from bridge.store import ArchiveRecord, SqlEventArchive
from loopline.cli import app
from loopline.streams.event_keys import checkpoint_key_file, ensure_keys, public_file, role_file
from schemas import EpisodeChain, WorkItem
from schemas.chain import hash_structured
from schemas.codec import from_structured, to_kafka, to_structured
from schemas.envelope import Event
from schemas.events import OutcomeObserved, PolicyRef
from tests.bridge.streams.broker import WorkerProcess, wait_until
from tests.conftest import StackHandle
from tests.e2e.capture_episodes import record_episodes

pytestmark = pytest.mark.integration
SOURCE = "loopline://bridge/rcm"
DETECTOR = "loopline://bridge/detect"
EPISODES = 6
Tamper = Callable[[sa.Engine, EventKey], None]


def _worker(stack: StackHandle, url: str, topic: str, keys: Path, work: Path) -> WorkerProcess:
    return WorkerProcess(
        stack.bootstrap_servers, url, topic, topic.replace(".events.", ".dlq."), work / "worker.log", group=topic,
        env_extra={
            "LOOPLINE_EVENT_KEYS_FILE": str(public_file(keys)),
            "LOOPLINE_DETECTOR_KEY_FILE": str(role_file("detector", keys)),
            "LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE": str(checkpoint_key_file("detector", keys)),
            "LOOPLINE_STREAMS_CHECKPOINT_DIR": str(work / "checkpoints"),
        },
    )  # fmt: skip


def _record(stack: StackHandle, work: Path) -> tuple[Path, Path, Path]:
    """(archive file, keys folder, checkpoints folder) of a clean run on a topic of its own."""
    from loopline.kafka.topics import ensure_topics

    keys = stack.state_dir / "keys" if stack.state_dir is not None else work / "keys"
    if stack.state_dir is None:
        ensure_keys(keys)  # an external stack: what `loopline up` would have made
    assert (keys / "checkpoints.pub").is_file() and role_file("bridge", keys).is_file()
    topic = f"test.tamper.{work.name}.events.v1"
    dlq = topic.replace(".events.", ".dlq.")
    anchors = topic.replace(".events.", ".checkpoints.")
    ensure_topics(stack.kafka.client_config("admin"), [topic, dlq], partitions=2)
    # the checkpoint topic: the bridge's capture is told it, the worker finds it beside the events topic
    db, checkpoints = work / "archive.db", work / "checkpoints"
    url = f"sqlite:///{db}"
    schema = SqlEventArchive(url)
    schema.create_schema()
    schema.engine.dispose()  # no connection of this process stays open on the file the worker writes
    worker = _worker(stack, url, topic, keys, work)
    capture = CaptureService.open(
        CaptureConfig(
            tenant="acme", source=SOURCE, outbox_path=work / "outbox.db", vault_url=f"sqlite:///{work / 'vault.db'}",
            environment="test", unmodelled="keep", topic=topic, kafka=stack.kafka.client_config("producer"),
            relay_process=False, event_keys_file=role_file("bridge", keys),
            checkpoint_key=SecretStr(checkpoint_key_file("bridge", keys).read_text().strip()),
            checkpoint_dir=checkpoints, checkpoint_interval_s=3600, checkpoint_topic=anchors,
        )
    )  # fmt: skip
    archive = SqlEventArchive(url)
    try:
        wait_until(lambda: _topic_exists(stack, anchors), "the worker made the checkpoint topic", worker)
        record_episodes(capture, EPISODES)
        escalated = capture.recorder()  # one edge case: the detector's own stream, its own checkpoint
        escalated.started(WorkItem(domain="rcm", kind="denial", item_id="CLM-2", instructions="Work it."),
                          payload_model=None, policy=PolicyRef(model="scripted"), tools=[], tools_hash="t",
                          system_prompt_hash="p", max_steps=4, max_seconds=5.0)  # fmt: skip
        escalated.escalated("needs a supervisor", trigger="policy", queue="supervisor")
        escalated.ended("escalated", steps=1, tool_calls=0, duration_ms=1.0)
        assert capture.close(30)  # delivered, and the final checkpoint of the delivered heads written
        wait_until(lambda: archive.count(source=SOURCE) == EPISODES * 4 + 3, "every event archived", worker)
        wait_until(lambda: archive.count(source=DETECTOR) == 1, "the edge case archived", worker)
    finally:
        worker.stop()
        archive.engine.dispose()
    ANCHORS[db] = (stack.bootstrap_servers, topic)
    return db, keys, checkpoints


@pytest.fixture(scope="module")
def recorded(stack: StackHandle, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(archive file, keys folder, checkpoints folder) of a clean run."""
    return _record(stack, tmp_path_factory.mktemp("tamper"))


ANCHORS: dict[Path, tuple[str, str]] = {}
"""Archive file → (bootstrap servers, its events topic: the checkpoint topic is its sibling)."""


def _topic_exists(stack: StackHandle, topic: str) -> bool:
    from confluent_kafka.admin import AdminClient

    return topic in AdminClient(stack.kafka.client_config("admin")).list_topics(timeout=5).topics


def _env(db: Path, keys: Path) -> dict[str, str]:
    """What a deployment's environment says: the keyring, the broker, the events topic."""
    bootstrap, topic = ANCHORS[db]
    return {"LOOPLINE_EVENT_KEYS_FILE": str(public_file(keys)), "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": bootstrap,
            "LOOPLINE_EVENTS_TOPIC": topic}  # fmt: skip


def _audit(
    db: Path, keys: Path, checkpoints: Path, *more: str, origin: Path | None = None
) -> tuple[int, str]:
    argv = ["audit", "verify", "--db-url", f"sqlite:///{db}", "--checkpoints", str(checkpoints), *more]
    result = CliRunner(env=_env(origin or db, keys)).invoke(app, argv)
    return result.exit_code, " ".join(result.output.split())


def _copy_db(source: Path, target: Path) -> None:
    """`source` copied to `target` through SQLite's backup API: consistent with what a WAL file still
    holds, and with no file handle of this process on `source` outside SQLite (closing one drops the
    process's locks on it, so a plain file copy can lose a concurrent writer's commit)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def _streams(engine: sa.Engine) -> list[str]:
    with engine.connect() as conn:
        query = "SELECT DISTINCT episodeid FROM event_archive WHERE source = :s ORDER BY episodeid"
        return [row[0] for row in conn.execute(sa.text(query), {"s": SOURCE})]


def _docs(engine: sa.Engine, stream: str) -> list[dict[str, object]]:
    with engine.connect() as conn:
        query = "SELECT structured FROM event_archive WHERE episodeid = :e ORDER BY seq"
        return [json.loads(row[0]) for row in conn.execute(sa.text(query), {"e": stream})]


def _rewrite(engine: sa.Engine, key: EventKey, *, column: bool) -> None:
    """Edit an event's content, re-hash and re-chain the rest of its stream and re-sign each with
    the bridge's own key; `column`: the hash column too."""
    stream = _streams(engine)[1]
    docs = _docs(engine, stream)
    docs[1]["data"]["call"]["arguments"]["claim_id"] = "CLM-999"  # type: ignore[index]
    for before, doc in zip([None, *docs], docs, strict=False):
        if before is not None:
            doc["prevhash"] = before["hash"]
        doc["hash"] = hash_structured(doc)
    with engine.begin() as conn:
        for doc in docs:
            update = "UPDATE event_archive SET structured = :s" + (", hash = :h" if column else "")
            conn.execute(
                sa.text(update + " WHERE event_id = :id"),
                {"s": json.dumps(doc), "h": doc["hash"], "id": doc["id"]},
            )
            key_id, mac = key.stamp(doc)
            conn.execute(sa.text("UPDATE event_macs SET key_id = :k, mac = :m WHERE event_id = :id"),
                         {"k": key_id, "m": mac, "id": doc["id"]})  # fmt: skip


def _forged(engine: sa.Engine) -> Event:
    """The next event of a recorded stream, validly chained: an outcome a forger would add."""
    stream = _streams(engine)[2]
    tail = _docs(engine, stream)[-1]
    chain = EpisodeChain(stream, tenant="acme", source=SOURCE, next_seq=int(tail["seq"]) + 1,  # type: ignore[call-overload]
                         prevhash=str(tail["hash"]))  # fmt: skip
    return chain.append(
        OutcomeObserved(kind="paid", item_id="CLM-1", amount="999999.00", observed_at=datetime.now(UTC))  # type: ignore[arg-type]
    )


def _append(engine: sa.Engine, key: EventKey, *, topic: str | None) -> None:
    """A validly chained and signed outcome, as a holder of the bridge's key would append it;
    `topic`: a faked position on that topic (`OWN`: the one the archive was written from)."""
    event = _forged(engine)
    record = ArchiveRecord.of(event, mac=key.stamp(to_structured(event)))
    if topic == OWN:
        with engine.connect() as conn:
            topic = str(conn.execute(sa.text("SELECT max(kafka_topic) FROM event_archive")).scalar_one())
    if topic is not None:  # a forger who also fakes a topic position
        record = ArchiveRecord(
            event, record.structured, topic=topic, partition=0, offset=10**9, mac=record.mac
        )
    SqlEventArchive(str(engine.url)).append([record])


OWN = "the archive's own event topic"


def _sql(*statements: str) -> Tamper:
    def run(engine: sa.Engine, _key: EventKey) -> None:
        streams = _streams(engine)
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(sa.text(statement), {"e": streams[3], "f": streams[4]})

    return run


def _fabricate(engine: sa.Engine, _key: EventKey) -> None:
    """A whole episode signed with the promotion workflow's key (its holder, not the bridge)."""
    keys = Path(str(engine.url).removeprefix("sqlite:///")).parent / "keys-copy"
    promotion = load_keyring(role_file("promotion", keys)).signing_key("loopline://workflows/promotion")
    template = [from_structured(d) for d in _docs(engine, _streams(engine)[0])]
    chain = EpisodeChain("ep-minted", tenant="acme", source="loopline://workflows/promotion")
    SqlEventArchive(str(engine.url)).append(
        [
            ArchiveRecord.of(e, mac=promotion.stamp(to_structured(e)))
            for e in (chain.append(t.data) for t in template)
        ]
    )


CASES: dict[str, tuple[Tamper, str, tuple[str, ...]]] = {
    "edited, re-hashed and re-signed, hash column left": (
        lambda e, k: _rewrite(e, k, column=False), "edited:", ()),
    "edited, re-hashed and re-signed, hash column too": (
        lambda e, k: _rewrite(e, k, column=True), "rewritten", ()),
    "an appended, re-signed event": (lambda e, k: _append(e, k, topic=None), "unsigned_growth", ()),
    "an appended, re-signed event with a faked topic position, audited after the lag": (
        lambda e, k: _append(e, k, topic="loopline.events.v1"), "unsigned_growth",
        ("--at", (datetime.now(UTC) + timedelta(hours=1)).isoformat())),
    "an appended, re-signed event with a position faked on another topic, audited within the lag": (
        lambda e, k: _append(e, k, topic="loopline.events.v1"), "unsigned_growth", ()),
    "an appended, re-signed event with a position faked on the event topic, audited within the lag": (
        lambda e, k: _append(e, k, topic=OWN), "topic_position_faked", ()),
    "a tail deleted after the newest checkpoint": (
        _sql("DELETE FROM event_archive WHERE episodeid = :e AND seq >= 2"), "tail_truncated", ()),
    "an episode deleted, projections too": (
        _sql("DELETE FROM event_archive WHERE episodeid = :e", "DELETE FROM proj_episodes WHERE episode_id = :e",
             "DELETE FROM proj_tool_calls WHERE episode_id = :e"), "stream_deleted", ()),
    "an edited projection": (
        _sql("UPDATE proj_episodes SET status = 'escalated' WHERE episode_id = :e"), "projection_edited", ()),
    "a deleted projection row": (
        _sql("DELETE FROM proj_episodes WHERE episode_id = :f"), "projection_missing", ()),
    "an added projection row": (
        _sql("INSERT INTO proj_tool_error_rates (tool, calls, failures, unknown) VALUES ('post_write_off', 3, 3, 0)"),
        "projection_extra", ()),
    "an event edited without re-hashing": (
        _sql("UPDATE event_archive SET structured = replace(structured, 'CLM-1', 'CLM-2') WHERE episodeid = :e AND seq = 0"),
        "broken:", ()),
    "an event's signature removed": (
        _sql("DELETE FROM event_macs WHERE event_id IN (SELECT event_id FROM event_archive WHERE episodeid = :e)"),
        "carries no MAC", ()),
    "an episode minted with the promotion workflow's key": (_fabricate, "out_of_scope", ()),
}  # fmt: skip


def test_the_untouched_archive_passes_the_default_audit(recorded: tuple[Path, Path, Path]) -> None:
    code, out = _audit(*recorded)
    assert code == 0, out
    assert "producer signatures and scopes" in out and "projections against a rebuild" in out
    assert f"the archive against the {EPISODES * 4 + 3 + 1} event(s) on test.tamper." in out
    assert "checkpoint(s): prefixes" in out


@pytest.mark.parametrize("case", list(CASES))
def test_the_default_audit_names_each_tampering(
    case: str, recorded: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    db, keys, checkpoints = recorded
    copy = tmp_path / "archive.db"
    _copy_db(db, copy)
    shutil.copytree(keys, tmp_path / "keys-copy")
    tamper, named, more = CASES[case]
    engine = sa.create_engine(f"sqlite:///{copy}")
    try:
        tamper(engine, load_keyring(role_file("bridge", keys)).signing_key(SOURCE))
    finally:
        engine.dispose()
    code, out = _audit(copy, keys, checkpoints, *more, origin=db)
    assert code == 1 and named in out, out


def test_an_edited_or_missing_checkpoint_is_named(recorded: tuple[Path, Path, Path], tmp_path: Path) -> None:
    db, keys, checkpoints = recorded
    edited = tmp_path / "checkpoints"
    shutil.copytree(checkpoints, edited)
    newest = sorted(edited.glob("checkpoint-*.json"))[-1]
    doc = json.loads(newest.read_text())
    doc["heads"] = {}
    newest.write_text(json.dumps(doc))
    code, out = _audit(db, keys, edited)
    assert code == 1 and "refused:" in out, out
    code, out = _audit(db, keys, tmp_path / "empty", "--skip", "checkpoint-topic")
    assert code == 1 and "not checked: checkpoints: none in" in out, out


def test_an_unreadable_checkpoint_topic_is_a_finding(recorded: tuple[Path, Path, Path]) -> None:
    code, out = _audit(*recorded, "--checkpoint-topic", "test.tamper.no-such.checkpoints.v1")
    assert code == 1 and "not checked: checkpoint topic: cannot read test.tamper.no-such" in out, out


def test_both_producers_anchor_their_checkpoints_on_the_topic(recorded: tuple[Path, Path, Path]) -> None:
    bootstrap, topic = ANCHORS[recorded[0]]
    sources = {
        doc["source"] for doc in anchored_checkpoints(bootstrap, topic.replace(".events.", ".checkpoints."))
    }
    assert sources == {SOURCE, DETECTOR}


@pytest.mark.parametrize("producer", [SOURCE, DETECTOR])
def test_with_the_checkpoint_files_gone_the_plain_audit_still_names_a_deleted_tail(
    producer: str, recorded: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    db, keys, _checkpoints = recorded
    copy = tmp_path / "archive.db"
    _copy_db(db, copy)
    engine = sa.create_engine(f"sqlite:///{copy}")
    try:
        with engine.begin() as conn:
            query = "SELECT episodeid, max(seq) FROM event_archive WHERE source = :s GROUP BY episodeid ORDER BY episodeid"
            stream, last = conn.execute(sa.text(query), {"s": producer}).all()[-1]
            conn.execute(
                sa.text("DELETE FROM event_archive WHERE episodeid = :e AND seq = :q"),
                {"e": stream, "q": last},
            )
    finally:
        engine.dispose()
    gone = tmp_path / "files-deleted"
    gone.mkdir()
    code, out = _audit(copy, keys, gone, "--skip", "checkpoint-topic", origin=db)
    assert code == 1 and "not checked: checkpoints: none in" in out, out  # blind without the topic
    code, out = _audit(copy, keys, gone, origin=db)  # the plain audit: the topic is read by default
    kind = "tail_truncated" if last > 0 else "stream_deleted"  # an edge case is one event
    assert code == 1 and f"stream {stream}: {kind}" in out, out
    assert "not checked" not in out, out


def test_an_event_appended_through_the_topic_and_deleted_within_the_lag_is_named(
    stack: StackHandle, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A holder of the bridge's key (and of a producer's access to the broker) produces a re-signed
    event; the real worker archives it; the forger deletes it again, projections restored, before
    any checkpoint covered it. The archive is as it was, so the checkpoints cannot see it: the
    event topic still holds it, and the plain audit names it."""
    work = tmp_path_factory.mktemp("appended")
    db, keys, checkpoints = _record(stack, work)
    before = work / "before.db"
    _copy_db(db, before)
    url = f"sqlite:///{db}"
    engine = sa.create_engine(url)
    try:
        event = _forged(engine)
    finally:
        engine.dispose()
    key = load_keyring(role_file("bridge", keys)).signing_key(SOURCE)
    record = to_kafka(event)
    producer = Producer(stack.kafka.client_config("producer"))
    topic = ANCHORS[db][1]
    producer.produce(
        topic, record.value, record.key, headers=[*record.headers, *key.headers_for(to_structured(event))]
    )
    assert producer.flush(10) == 0
    worker = _worker(stack, url, topic, keys, work)
    archive = SqlEventArchive(url)
    try:
        wait_until(
            lambda: archive.count(source=SOURCE) == EPISODES * 4 + 4, "the forged event archived", worker
        )
    finally:
        worker.stop()
        archive.engine.dispose()
    _copy_db(before, db)  # deleted again, and every projection as it was
    code, out = _audit(db, keys, checkpoints, "--skip", "event-topic")
    assert code == 0, out  # what the checkpoints alone can say: nothing is missing
    code, out = _audit(db, keys, checkpoints)
    assert code == 1 and f"deleted_from_archive: {topic} holds event {event.id}" in out, out
