"""`--ports auto` keeps the ports a state folder had, so running clients find a restarted stack."""

from __future__ import annotations

import socket
import threading
from datetime import UTC, datetime
from pathlib import Path

from loopline.stack.ports import pick_free_ports
from loopline.stack.settings import StackPorts, StackSettings
from loopline.stack.startup import choose_ports
from loopline.stack.state import Endpoints, StackLayout, StackState

FIELDS = ["kafka", "temporal"]


def auto(tmp_path: Path) -> StackSettings:
    return StackSettings(state_dir=tmp_path, port_mode="auto", broker_storage="memory", temporal_ui=False)


def test_the_last_ports_outlive_the_state_file(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    ports = pick_free_ports(FIELDS)
    endpoints = Endpoints(bootstrap_servers=f"127.0.0.1:{ports.kafka}", temporal_address="127.0.0.1:1")
    layout.write(StackState(mode="embedded", started_at=datetime.now(UTC), endpoints=endpoints, ports=ports))
    layout.clear()
    assert layout.read() is None
    assert layout.last_ports() == ports


def test_auto_mode_reuses_the_last_ports_when_they_are_free(tmp_path: Path) -> None:
    last = pick_free_ports(FIELDS)
    assert choose_ports(auto(tmp_path), last) == last


def test_auto_mode_picks_new_ports_when_a_last_one_is_taken(tmp_path: Path) -> None:
    last = pick_free_ports(FIELDS)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", last.kafka))
        holder.listen()
        chosen = choose_ports(auto(tmp_path), last, release_wait_s=0.2)
    assert chosen.kafka != last.kafka


def test_auto_mode_waits_for_a_last_port_that_a_stopping_process_releases(tmp_path: Path) -> None:
    last = pick_free_ports(FIELDS)
    holder = socket.socket()
    holder.bind(("127.0.0.1", last.kafka))
    holder.listen()
    release = threading.Timer(0.5, holder.close)
    release.start()
    try:
        chosen = choose_ports(auto(tmp_path), last, release_wait_s=5.0)
    finally:
        release.join()
    assert chosen == last


def test_an_unreadable_ports_file_counts_as_none(tmp_path: Path) -> None:
    layout = StackLayout(tmp_path)
    layout.ports_file.write_text("{not json")
    assert layout.last_ports() is None
    assert isinstance(choose_ports(auto(tmp_path), layout.last_ports()), StackPorts)
