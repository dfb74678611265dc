"""The capture service wired from a config: record, resume for an outcome, drain on close."""

from __future__ import annotations

import secrets
import socket
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from bridge.capture import CaptureConfig, CaptureService, KafkaRelay, ProcessRelay
from bridge.phi import OPERATOR_ROLE
from schemas import from_kafka, verify_chain
from schemas.events import OutcomeObserved
from tests.bridge.capture.brokers import create_topic, read_topic
from tests.bridge.recording.episodes import ARGS_MODELS, record_episode


def config(tmp_path: Path, **overrides: Any) -> CaptureConfig:
    return CaptureConfig(
        tenant="clinic-a",
        source="loopline://tests/service",
        outbox_path=tmp_path / "outbox.db",
        vault_url=f"sqlite:///{tmp_path / 'vault.db'}",
        vault_key=SecretStr(secrets.token_urlsafe(32)),
        **overrides,
    )


def test_a_service_without_kafka_records_durably_and_reveals_to_operators(tmp_path: Path) -> None:
    with CaptureService.open(config(tmp_path)) as service:
        assert service.relay is None
        events = record_episode(service.recorder("ep-1", args_models=ARGS_MODELS))
        stored = service.outbox.events("ep-1")
        assert [doc["id"] for doc in stored] == [e.id for e in events]
        token = stored[0]["data"]["work_item"]["payload"]["patient"]["name"]
        assert service.vault.reveal(token, OPERATOR_ROLE) == "Ada Lovelace"


@pytest.mark.parametrize("relay_process", [False, True], ids=["relay-thread", "relay-process"])
def test_a_service_ships_episodes_and_later_outcomes_to_kafka(
    tmp_path: Path, kafka_config: dict[str, Any], unique_topic: str, relay_process: bool
) -> None:
    create_topic(kafka_config, unique_topic)
    settings = config(tmp_path, kafka=kafka_config, topic=unique_topic, relay_process=relay_process)
    with CaptureService.open(settings) as service:
        assert isinstance(service.relay, ProcessRelay if relay_process else KafkaRelay)
        events = record_episode(service.recorder("ep-1", args_models=ARGS_MODELS))
        outcome = OutcomeObserved(kind="paid", item_id="CLM-1", observed_at=datetime(2025, 3, 1, tzinfo=UTC))
        events.append(service.record_outcome("ep-1", outcome))
        assert service.close(timeout=30)
    consumed = read_topic(kafka_config, unique_topic, {e.id for e in events})
    decoded = sorted(
        {m.event_id: from_kafka(m.value, m.headers) for m in consumed}.values(), key=lambda e: e.seq
    )
    assert [e.id for e in decoded] == [e.id for e in events]
    assert verify_chain(decoded) is None  # the chain survives the trip, outcome included


def test_health_shows_the_relay_and_turns_degraded_when_it_should_run_and_does_not(
    tmp_path: Path, kafka_config: dict[str, Any], unique_topic: str
) -> None:
    (tmp_path / "off").mkdir()
    with CaptureService.open(config(tmp_path / "off")) as without_kafka:
        assert without_kafka.health() == {"status": "ok", "relay": "off", "pending": 0, "backlog_age_s": None}
    create_topic(kafka_config, unique_topic)
    with CaptureService.open(config(tmp_path, kafka=kafka_config, topic=unique_topic)) as service:
        events = record_episode(service.recorder("ep-1", args_models=ARGS_MODELS))
        assert service.relay is not None and service.relay.flush(30)
        health = service.health()
        assert (health["status"], health["relay"], health["pending"]) == ("ok", "running", 0)
        assert health["delivered"] == len(events) and health["rejected"] == 0
        service.relay.close(5)  # a relay that stopped while the service runs
        service.recorder("ep-2", args_models=ARGS_MODELS).escalated("stuck", trigger="rule")
        health = service.health()
        assert (health["status"], health["relay"], health["pending"]) == ("degraded", "stopped", 1)
    assert service.health()["status"] == "closed"


def test_health_is_degraded_while_the_relay_cannot_deliver_and_once_the_backlog_is_old(
    tmp_path: Path,
) -> None:
    with socket.socket() as closed:  # a port nothing listens on: a broker that is down
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    broker_down = {"bootstrap.servers": f"127.0.0.1:{port}", "socket.connection.setup.timeout.ms": 1000}
    settings = config(tmp_path, kafka=broker_down, topic="t", relay_process=False, backlog_alarm_s=60)
    with CaptureService.open(settings) as service:
        service.recorder("ep-1", args_models=ARGS_MODELS).escalated("waiting", trigger="rule")
        fresh = service.health()
        assert fresh["relay"] == "running" and fresh["pending"] == 1 and fresh["backlog_age_s"] < 60
        old = service.health(now=time.time() + 120)
        assert old["status"] == "degraded" and any("waited" in reason for reason in old["reasons"])
        deadline = time.monotonic() + 20
        while service.health()["status"] == "ok" and time.monotonic() < deadline:
            time.sleep(0.2)  # librdkafka reports the refused connection within seconds
        now = service.health()
        assert now["status"] == "degraded" and any("cannot deliver" in r for r in now["reasons"]), now
        service.close(timeout=0.5)


def test_a_service_with_a_checkpoint_key_signs_the_delivered_heads_on_close(
    tmp_path: Path, kafka_config: dict[str, Any], unique_topic: str
) -> None:
    import base64
    import json

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from bridge.audit.checkpoints import verify_checkpoint

    key = Ed25519PrivateKey.generate()
    seed = base64.b64encode(key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())).decode()
    create_topic(kafka_config, unique_topic)
    folder = tmp_path / "checkpoints"
    settings = config(tmp_path, kafka=kafka_config, topic=unique_topic, checkpoint_key=SecretStr(seed),
                      checkpoint_dir=folder, checkpoint_interval_s=3600)  # fmt: skip
    with CaptureService.open(settings) as service:
        events = record_episode(service.recorder("ep-1", args_models=ARGS_MODELS))
        assert service.close(timeout=30)
    [path] = sorted(folder.glob("checkpoint-*.json"))
    heads = verify_checkpoint(json.loads(path.read_text()), key.public_key())
    assert heads == {"ep-1": (events[-1].seq, events[-1].hash)}
