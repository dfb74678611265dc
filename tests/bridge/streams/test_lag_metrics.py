"""The stream worker's `/metrics`, served on a port of its own, parses with Prometheus' parser and
reports the projector's lag in events against the archive's Kafka positions; a real worker process
against the real broker reports no lag once it has archived what was produced."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bridge.store import ArchiveRecord, SqlEventArchive
from bridge.store.tallies import archived_offsets
from bridge.streams.config import StreamsConfig
from bridge.streams.lag import kafka_watermarks
from bridge.streams.metrics import serve_metrics, streams_registry
from tests.bridge.store.builders import typical_episode
from tests.bridge.streams.broker import WorkerProcess, produce, wait_until


def _families(url: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    text = httpx.get(url).text
    return {f.name: [(s.labels, s.value) for s in f.samples] for f in text_string_to_metric_families(text)}


def test_lag_counts_the_events_past_the_last_archived_offset(tmp_path: Path) -> None:
    config = StreamsConfig(db_url=f"sqlite:///{tmp_path / 'archive.db'}", events_topic="events")
    archive = SqlEventArchive(config.db_url)
    archive.create_schema()
    events = typical_episode("ep-lag").events[:5]
    archive.append(
        [ArchiveRecord(e, ArchiveRecord.of(e).structured, "events", 0, 10 + i) for i, e in enumerate(events)]
    )
    marks = {0: (10, 18), 1: (0, 3)}
    server, _ = serve_metrics(streams_registry(config, archive.engine, lambda: marks), 0, "127.0.0.1")
    try:
        got = _families(f"http://127.0.0.1:{server.server_port}/metrics")
    finally:
        server.shutdown()
    lag = {labels["partition"]: value for labels, value in got["loopline_projector_lag_events"]}
    assert lag == {"0": 3.0, "1": 3.0}
    assert got["loopline_projector_lag_events_total"] == [({}, 6.0)] and got["loopline_projector_lag_up"] == [
        ({}, 1.0)
    ]
    assert "loopline_episodes" in got and "process_resident_memory_bytes" in got


def test_an_unreachable_topic_reads_as_down_not_an_error(tmp_path: Path) -> None:
    config = StreamsConfig(db_url=f"sqlite:///{tmp_path / 'archive.db'}", events_topic="events")
    archive = SqlEventArchive(config.db_url)
    archive.create_schema()

    def broken() -> dict[int, tuple[int, int]]:
        raise KeyError("events")

    server, _ = serve_metrics(streams_registry(config, archive.engine, broken), 0, "127.0.0.1")
    try:
        got = _families(f"http://127.0.0.1:{server.server_port}/metrics")
    finally:
        server.shutdown()
    assert got["loopline_projector_lag_up"] == [({}, 0.0)] and "loopline_projector_lag_events" not in got


@pytest.mark.integration
def test_a_running_worker_reports_its_lag_on_its_metrics_port(
    kafka_config: dict[str, Any], make_topic: Callable[..., str], unique_topic: str, tmp_path: Path
) -> None:
    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    make_topic(unique_topic, partitions=2)
    make_topic(dlq, partitions=1)
    url = f"sqlite:///{tmp_path / 'archive.db'}"
    episode = typical_episode("ep-metrics")
    port = _free_port()
    worker = WorkerProcess(
        bootstrap, url, unique_topic, dlq, tmp_path / "worker.log", group=unique_topic,
        env_extra={"LOOPLINE_STREAMS_METRICS_PORT": str(port)},
    )  # fmt: skip
    try:
        produce(bootstrap, unique_topic, episode.events)
        archive = SqlEventArchive(url)

        def archived() -> bool:
            stream = episode.events[0].episodeid
            return archive.exists() and sum(1 for _ in archive.iter_structured(stream=stream)) == len(
                episode.events
            )

        wait_until(archived, "the episode archived", worker, timeout_s=90)
        got: dict[str, list[tuple[dict[str, str], float]]] = {}
        marks = kafka_watermarks(kafka_config, unique_topic)
        expected: dict[str, float] = {}

        def agrees() -> bool:
            # the lag the running worker reports is the one its topic and archive show right now
            nonlocal got, expected
            try:
                got = _families(f"http://127.0.0.1:{port}/metrics")
            except httpx.HTTPError:
                return False
            done = archived_offsets(archive.engine, unique_topic)
            expected = {
                str(p): float(max(0, high - max(done.get(p, low - 1) + 1, low)))
                for p, (low, high) in marks().items()
            }
            reported = {
                labels["partition"]: value for labels, value in got.get("loopline_projector_lag_events", [])
            }
            return reported == expected

        try:
            wait_until(agrees, "the reported lag to match the topic and the archive", worker, timeout_s=30)
        except AssertionError as exc:
            raise AssertionError(
                f"{exc}\nlast scrape: {got.get('loopline_projector_lag_events')} vs {expected}"
            ) from None
        assert got["loopline_projector_lag_up"] == [({}, 1.0)] and sorted(expected) == ["0", "1"]
        assert got["loopline_projector_lag_events_total"] == [({}, sum(expected.values()))]
        assert sum(expected.values()) <= 1, "at most a trailing dead letter is left behind"
    finally:
        worker.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
