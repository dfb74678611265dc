"""Real workers' `/healthz` and `/readyz`: each is ready once it has joined the group and holds
partitions, and two workers of one group split the events topic between them."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.bridge.streams.broker import WorkerProcess, wait_until

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _probe(port: int, path: str) -> int | None:
    try:
        return httpx.get(f"http://127.0.0.1:{port}{path}", timeout=2).status_code
    except httpx.TransportError:
        return None  # the web server is not up yet


def _assigned(port: int) -> list[str]:
    return list(httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).json()["assigned"])


def test_the_worker_is_ready_once_it_holds_partitions_of_its_group(
    kafka_config: dict[str, Any], make_topic: Callable[..., str], unique_topic: str, tmp_path: Path
) -> None:
    bootstrap, dlq = kafka_config["bootstrap.servers"], unique_topic + ".dlq"
    make_topic(unique_topic, partitions=2)
    make_topic(dlq, partitions=1)
    url = f"sqlite:///{tmp_path}/archive.db"
    ports = _free_port(), _free_port()
    started: list[WorkerProcess] = []
    try:
        for n, port in enumerate(ports):
            worker = WorkerProcess(
                bootstrap, url, unique_topic, dlq, tmp_path / f"worker-{n}.log", group=unique_topic,
                env_extra={"LOOPLINE_STREAMS_WEB_BIND": "127.0.0.1"}, args=["--web-port", str(port)],
            )  # fmt: skip
            started.append(worker)
            wait_until(lambda port=port: _probe(port, "/healthz") == 200, "/healthz", worker)
            wait_until(lambda port=port: _probe(port, "/readyz") == 200, "/readyz", worker, timeout_s=90)
        first, second = (_assigned(port) for port in ports)
        # one group: the two workers share the events topic's partitions, none held twice
        events = {p for p in first + second if not p.startswith(dlq)}
        assert events == {f"{unique_topic}:0", f"{unique_topic}:1"}
        assert not set(first) & set(second)
    finally:
        for worker in started:
            worker.stop()
