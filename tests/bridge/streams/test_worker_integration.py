"""A real worker process against the real broker and SQL: restarts, redelivery, hostile input."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.store import ArchiveRecord, SqlEpisodeReader, SqlEventArchive, audit_archive
from bridge.streams.deadletter import DeadLetter, as_mapping
from bridge.streams.topic_reader import read_topic
from schemas import Event
from tests.bridge.store.builders import typical_episode
from tests.bridge.store.snapshot import projection_snapshot
from tests.bridge.streams.broker import WorkerProcess, produce, wait_until
from tests.bridge.streams.messages import hostile

pytestmark = pytest.mark.integration


@pytest.fixture
def workers() -> Iterator[list[WorkerProcess]]:
    started: list[WorkerProcess] = []
    yield started
    for worker in started:
        worker.stop()


@pytest.fixture
def sqlite_archive(tmp_path: Path) -> Iterator[tuple[str, SqlEventArchive]]:
    url = f"sqlite:///{tmp_path}/archive.db"
    archive = SqlEventArchive(url)
    archive.create_schema()
    yield url, archive
    archive.engine.dispose()


def test_a_restarted_projector_fed_everything_twice_ends_identical_to_a_clean_rebuild(
    kafka_config: dict[str, Any],
    make_topic: Callable[..., str],
    unique_topic: str,
    sql_url: str,
    tmp_path: Path,
    workers: list[WorkerProcess],
) -> None:
    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    make_topic(unique_topic, partitions=4)
    make_topic(dlq, partitions=1)
    archive = SqlEventArchive(sql_url)
    archive.create_schema()
    episodes = [typical_episode(f"ep-{i}", item_id=f"CLM-{i}").events for i in range(40)]
    first, second = [e for ep in episodes[:20] for e in ep], [e for ep in episodes[20:] for e in ep]

    def args(n: int) -> tuple[str, str, str, str, Path]:
        return bootstrap, sql_url, unique_topic, dlq, tmp_path / f"worker-{n}.log"

    def partition_of(event: Event) -> int:  # every partition gets episodes of both halves
        return int(event.episodeid.removeprefix("ep-")) % 4

    produce(bootstrap, unique_topic, first, partition_of=partition_of)
    crashed = WorkerProcess(*args(1), group=unique_topic)
    workers.append(crashed)
    wait_until(lambda: archive.count() >= len(first), "the first half archived", crashed)
    crashed.kill()  # mid-stream: the second half is still to come, recent offsets uncommitted

    # Every earlier event once more, then the rest: once each partition's last episode is
    # projected, everything before it in the partition (the duplicates too) was consumed.
    produce(bootstrap, unique_topic, first + second, partition_of=partition_of)
    restarted = WorkerProcess(*args(2), group=unique_topic)
    workers.append(restarted)
    reader = SqlEpisodeReader(archive.engine)

    def all_paid() -> bool:
        return sum(e.latest_outcome == "paid" for e in reader.list_episodes(limit=1000)) == 40

    wait_until(all_paid, "every episode's outcome", restarted)
    restarted.stop()

    streamed = projection_snapshot(archive.engine)
    assert {(r.tool, r.calls, r.failures) for r in reader.tool_error_rates()} == {
        ("get_claim", 40, 0),
        ("submit_appeal", 40, 40),
    }
    assert {(e.steps, e.tool_calls) for e in reader.list_episodes(limit=1000)} == {(2, 2)}
    archive.rebuild()
    assert projection_snapshot(archive.engine) == streamed
    assert audit_archive(archive).ok


def test_hostile_messages_land_in_the_dlq_with_their_reason_and_the_stream_carries_on(
    kafka_config: dict[str, Any],
    make_topic: Callable[..., str],
    unique_topic: str,
    sqlite_archive: tuple[str, SqlEventArchive],
    tmp_path: Path,
    workers: list[WorkerProcess],
) -> None:
    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    url, archive = sqlite_archive
    make_topic(unique_topic, partitions=1)  # one partition: "after" means after
    make_topic(dlq, partitions=1)
    before, after = typical_episode("ep-before"), typical_episode("ep-after")
    bad = hostile(before.events[1])
    produce(
        bootstrap, unique_topic, before.events, [(b"k", value, headers) for value, headers in bad.values()]
    )
    produce(bootstrap, unique_topic, after.events)

    worker = WorkerProcess(bootstrap, url, unique_topic, dlq, tmp_path / "worker.log", group=unique_topic)
    workers.append(worker)
    reader = SqlEpisodeReader(archive.engine)
    wait_until(
        lambda: (d := reader.get_episode("ep-after")) is not None and d.episode.latest_outcome == "paid",
        "ep-after",
        worker,
    )
    wait_until(
        lambda: len(reader.list_edge_cases(rule="schema_violation.dead_letter")) == len(bad),
        "DLQ edge cases",
        worker,
    )
    worker.stop()

    letters = [
        DeadLetter(m.key, m.value, [(k, v if isinstance(v, bytes) else b"") for k, v in m.headers])
        for m in read_topic(bootstrap, dlq, idle_timeout_s=3)
    ]
    assert sorted(as_mapping(d)["reason_code"] for d in letters) == sorted(bad)
    for letter in letters:
        meta = as_mapping(letter)
        assert (meta["topic"], meta["stage"]) == (unique_topic, "projector") and meta["reason"]
        original = bad[meta["reason_code"]][0]
        if meta["reason_code"] == "oversized":
            assert letter.value == original[: len(letter.value or b"")] and meta["value_truncated"] == str(
                len(original or b"")
            )
        else:
            assert letter.value == original
    assert {e.episode_id for e in reader.list_episodes()} == {"ep-before", "ep-after"}


def test_replay_from_the_topic_refills_a_lost_archive_and_stops_at_the_fetched_end(
    kafka_config: dict[str, Any],
    make_topic: Callable[..., str],
    unique_topic: str,
    sqlite_archive: tuple[str, SqlEventArchive],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from typer.testing import CliRunner

    from bridge.audit.event_keys import save_keyring
    from bridge.streams.topic_reader import estimate_size
    from loopline.cli import app
    from tests.bridge.streams.broker import producer_keyring

    bootstrap = kafka_config["bootstrap.servers"]
    make_topic(unique_topic, partitions=2)
    events = [e for i in range(15) for e in typical_episode(f"ep-{i}", item_id=f"CLM-{i}").events]
    forged = typical_episode("ep-forged").events
    produce(bootstrap, unique_topic, events)  # lingering producer: multi-record batches, Tansu's bad case
    produce(bootstrap, unique_topic, forged, sign=False)  # the replay keeps out what the worker would
    save_keyring(tmp_path / "event-keys.json", producer_keyring())
    monkeypatch.setenv("LOOPLINE_EVENT_KEYS_FILE", str(tmp_path / "event-keys.json"))
    url, archive = sqlite_archive
    expected = SqlEventArchive(f"sqlite:///{tmp_path}/expected.db")
    expected.create_schema()
    expected.append([ArchiveRecord.of(e) for e in events])

    started = time.monotonic()
    argv = [
        "replay",
        "--from",
        "topic",
        "--topic",
        unique_topic,
        "--db-url",
        url,
        "--bootstrap-servers",
        bootstrap,
        "--idle-timeout-s",
        "30",
    ]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 20, (
        "the read must end at each partition's fetched end, not by idling out"
    )
    assert archive.count() == len(events) and f"{len(forged)} refused" in " ".join(result.output.split())
    assert projection_snapshot(archive.engine) == projection_snapshot(expected.engine)
    assert estimate_size(bootstrap, unique_topic) <= len(events + forged)  # ListOffsets: an estimate
