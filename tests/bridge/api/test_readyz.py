"""`/readyz`: 200 while capture is ok, 503 while the relay cannot deliver or the bridge drains."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import httpx

from adapters import Toolbox
from adapters.rcm import RCM_TOOLS, SimBackend, seed_world
from adapters.serving import serve_in_thread
from bridge.api.app import create_app
from bridge.api.auth import TokenTable
from bridge.capture import CaptureConfig, CaptureService
from bridge.store import SqlEventArchive
from engine import EpisodeConfig, ScriptedPolicy, say
from loopline.bridge.app import rcm_services
from loopline.kafka.topics import ensure_topics
from tests.bridge.api.conftest import TOKENS, Bridge


def _capture(tmp_path: Path, kafka: dict[str, Any], topic: str) -> CaptureService:
    return CaptureService.open(
        CaptureConfig(
            tenant="acme", source="loopline://bridge/test", outbox_path=tmp_path / "outbox.db",
            vault_url=f"sqlite:///{tmp_path / 'vault.db'}", environment="test",
            kafka=kafka, topic=topic, relay_process=False,
        )
    )  # fmt: skip


def _ready(url: str) -> httpx.Response:
    return httpx.get(f"{url}/readyz", timeout=10)


def _serve(capture: CaptureService, tmp_path: Path) -> Any:
    archive = SqlEventArchive(f"sqlite:///{tmp_path / 'archive.db'}")
    archive.create_schema()
    services = rcm_services(
        capture, Toolbox(RCM_TOOLS, SimBackend(seed_world())), ScriptedPolicy(lambda _m: say("done")),
        EpisodeConfig(max_steps=2), archive,
    )  # fmt: skip
    return serve_in_thread(create_app(services, TokenTable.from_tokens(TOKENS)), name="bridge-readyz")


def test_a_bridge_without_a_relay_is_ready(bridge: Bridge) -> None:
    answer = _ready(bridge.url)
    assert answer.status_code == 200 and answer.json()["ready"] is True


def test_a_bridge_is_ready_while_its_relay_delivers_to_a_real_broker(
    tmp_path: Path, kafka_config: dict[str, Any], unique_topic: str
) -> None:
    ensure_topics(kafka_config, [unique_topic], partitions=1)
    with _capture(tmp_path, kafka_config, unique_topic) as capture, _serve(capture, tmp_path) as url:
        capture.recorder("ep-1").escalated("waiting", trigger="rule")
        assert capture.relay is not None and capture.relay.flush(30)
        answer = _ready(url)
        assert answer.status_code == 200, answer.json()
        assert answer.json()["capture"]["relay"] == "running"
        assert httpx.get(f"{url}/healthz", timeout=10).status_code == 200


def test_a_bridge_is_not_ready_while_its_relay_cannot_deliver(tmp_path: Path) -> None:
    with socket.socket() as closed:  # a port nothing listens on: a broker that is down
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    broker_down = {"bootstrap.servers": f"127.0.0.1:{port}", "socket.connection.setup.timeout.ms": 1000}
    with _capture(tmp_path, broker_down, "t") as capture, _serve(capture, tmp_path) as url:
        capture.recorder("ep-1").escalated("waiting", trigger="rule")
        deadline = time.monotonic() + 20
        while _ready(url).status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.2)  # librdkafka reports the refused connection within seconds
        answer = _ready(url)
        assert answer.status_code == 503
        assert any("cannot deliver" in r for r in answer.json()["capture"]["reasons"])
        health = httpx.get(f"{url}/healthz", timeout=10)  # alive all the same: liveness stays 200
        assert health.status_code == 200 and health.json()["status"] == "degraded"
