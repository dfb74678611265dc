"""Settings: read from LOOPLINE_* at construction, validated with messages that name the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from loopline.kafka.settings import KafkaSettings
from loopline.stack.settings import StackPorts, StackSettings


def test_stack_settings_read_the_environment_when_built_not_when_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LOOPLINE_STATE_DIR", "/srv/loopline-state")
    monkeypatch.setenv("LOOPLINE_BROKER_STORAGE", "memory")
    monkeypatch.setenv("LOOPLINE_PORTS__KAFKA", "19092")

    settings = StackSettings()

    assert settings.state_dir == Path("/srv/loopline-state")
    assert settings.broker_storage == "memory"
    assert settings.ports.kafka == 19092
    assert settings.ports.temporal == StackPorts().temporal


def test_stack_settings_default_to_a_durable_stack_on_fixed_ports_in_dot_loopline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("LOOPLINE_STATE_DIR", "LOOPLINE_BROKER_STORAGE", "LOOPLINE_PORT_MODE", "LOOPLINE_EXTERNAL"):
        monkeypatch.delenv(name, raising=False)

    settings = StackSettings()

    assert (settings.state_dir, settings.broker_storage, settings.port_mode) == (
        Path(".loopline"),
        "s3",
        "fixed",
    )
    assert settings.ports.kafka == 9092 and settings.ports.temporal == 7233


def test_an_external_stack_needs_both_endpoints() -> None:
    with pytest.raises(ValidationError, match="LOOPLINE_TEMPORAL_ADDRESS"):
        StackSettings(external=True, bootstrap_servers="kafka:9092")


def test_an_unknown_broker_storage_is_refused() -> None:
    with pytest.raises(ValidationError, match="'s3' or 'memory'"):
        StackSettings(broker_storage="disk")  # type: ignore[arg-type]


def test_stack_ports_must_be_distinct() -> None:
    with pytest.raises(ValidationError, match="distinct"):
        StackPorts(kafka=7233)


@pytest.mark.parametrize("value", ["", "kafka", "kafka:", "kafka:port", ":9092", "a:1,b"])
def test_bootstrap_servers_must_be_host_port_lists(value: str) -> None:
    with pytest.raises(ValidationError, match=r"host:port|empty"):
        KafkaSettings(bootstrap_servers=value)


def test_bootstrap_servers_are_normalised() -> None:
    assert KafkaSettings(bootstrap_servers=" a:1 , b:2 ,").bootstrap_servers == "a:1,b:2"


def test_the_embedded_broker_refuses_a_session_timeout_outside_3_to_6_seconds() -> None:
    with pytest.raises(ValidationError, match="3000-6000"):
        KafkaSettings(embedded=True, session_timeout_ms=45_000)
    assert KafkaSettings(embedded=False, session_timeout_ms=45_000).session_timeout_ms == 45_000


def test_embedded_client_config_carries_the_tansu_fixes_for_consumers_only_where_they_apply() -> None:
    kafka = KafkaSettings(bootstrap_servers="127.0.0.1:19092", embedded=True, session_timeout_ms=6000)

    consumer = kafka.client_config("consumer")
    producer = kafka.client_config("producer")

    assert consumer["bootstrap.servers"] == "127.0.0.1:19092"
    assert consumer["session.timeout.ms"] == 6000 and consumer["heartbeat.interval.ms"] == 1000
    assert consumer["allow.auto.create.topics"] is False and producer["allow.auto.create.topics"] is False
    assert "session.timeout.ms" not in producer  # librdkafka would warn about a consumer property
    assert producer["acks"] == "all"


def test_external_client_config_leaves_the_client_defaults_alone() -> None:
    config = KafkaSettings(bootstrap_servers="kafka-0:9092", embedded=False).client_config("consumer")

    assert config == {"bootstrap.servers": "kafka-0:9092", "client.id": "loopline"}
