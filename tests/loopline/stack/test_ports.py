"""Ports: a taken port is one line that says what to do; auto mode picks usable free ports."""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator

import pytest

from loopline.stack.errors import PortTaken
from loopline.stack.ports import (
    GRPC_OFFSET,
    SEAWEED_FIELDS,
    ensure_free,
    needed_fields,
    pick_free_ports,
    port_is_free,
)
from loopline.stack.settings import StackPorts


@pytest.fixture
def listening_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


def test_a_listening_port_is_not_free(listening_port: int) -> None:
    assert not port_is_free(listening_port)


def test_a_taken_port_names_the_port_its_owner_and_the_fixes(listening_port: int) -> None:
    ports = StackPorts(kafka=listening_port)

    with pytest.raises(PortTaken) as caught:
        ensure_free(ports, ["kafka"])

    message = str(caught.value)
    assert "\n" not in message
    assert f"port {listening_port}" in message and "Kafka broker" in message
    assert "LOOPLINE_PORTS__KAFKA" in message and "--ports auto" in message


def test_a_taken_grpc_twin_makes_a_seaweedfs_port_unusable(listening_port: int) -> None:
    if listening_port - GRPC_OFFSET < 1:
        pytest.skip("the kernel gave a port below the offset")
    ports = StackPorts(s3=listening_port - GRPC_OFFSET)

    with pytest.raises(PortTaken, match=str(listening_port)):
        ensure_free(ports, ["s3"])


def test_auto_ports_are_free_distinct_and_below_the_ephemeral_range() -> None:
    fields = needed_fields(with_seaweed=True, with_ui=True)

    ports = pick_free_ports(fields, random.Random(7))

    chosen = [getattr(ports, field) for field in fields]
    twins = [getattr(ports, field) + GRPC_OFFSET for field in SEAWEED_FIELDS]
    assert len(set(chosen + twins)) == len(chosen) + len(twins)
    assert all(port_is_free(port) for port in chosen + twins)
    assert max(chosen + twins) < 32_768


def test_a_memory_stack_without_ui_needs_only_kafka_and_temporal_ports() -> None:
    assert needed_fields(with_seaweed=False, with_ui=False) == ["kafka", "temporal"]
