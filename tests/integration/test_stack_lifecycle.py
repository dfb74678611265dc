"""`loopline up|down|status` as a user runs them: each test drives the CLI in its own state folder."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from loopline.kafka.settings import KafkaSettings
from loopline.stack.binaries import scripts_dir
from tests.integration.ce_messages import binary_mode_message

pytestmark = pytest.mark.integration
LOOPLINE = str(scripts_dir() / "loopline")


def loopline(state_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI with a clean LOOPLINE_* environment pointing at `state_dir`."""
    base = {key: value for key, value in os.environ.items() if not key.startswith("LOOPLINE_")}
    full_env = {**base, "LOOPLINE_STATE_DIR": str(state_dir), "COLUMNS": "200", **env}
    return subprocess.run([LOOPLINE, *args], env=full_env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def state_dir(tmp_path: Path) -> Iterator[Path]:
    """A state folder whose stack is always brought down, even when the test fails half-way."""
    folder = tmp_path / "state"
    yield folder
    loopline(folder, "down")


def recorded(state_dir: Path) -> dict[str, Any]:
    return dict(json.loads((state_dir / "stack.json").read_text()))


def leftovers(state: dict[str, Any], state_dir: Path) -> list[str]:
    """Processes of the stack still alive: by recorded pid and create time, or naming the state folder."""
    alive = []
    for name, record in state["processes"].items():
        try:
            proc = psutil.Process(record["pid"])
            if (
                proc.status() != psutil.STATUS_ZOMBIE
                and abs(proc.create_time() - record["create_time"]) < 0.05
            ):
                alive.append(f"{name} (pid {record['pid']})")
        except psutil.NoSuchProcess:
            pass
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        if proc.info["status"] != psutil.STATUS_ZOMBIE and str(state_dir) in " ".join(
            proc.info["cmdline"] or []
        ):
            alive.append(f"pid {proc.info['pid']}: {' '.join(proc.info['cmdline'])[:80]}")
    return alive


def test_up_is_ready_within_10_s_and_down_leaves_no_process_behind(state_dir: Path) -> None:
    started = time.monotonic()
    result = loopline(state_dir, "up", "--ports", "auto")
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert elapsed < 10, f"`loopline up` took {elapsed:.1f} s"
    state = recorded(state_dir)
    assert set(state["processes"]) == {"seaweedfs", "tansu", "temporal"}
    assert state["endpoints"]["bootstrap_servers"] in result.stdout
    assert (state_dir / "run" / "tansu.pid").read_text().strip() == str(state["processes"]["tansu"]["pid"])

    down = loopline(state_dir, "down")

    assert down.returncode == 0, down.stderr
    assert leftovers(state, state_dir) == []
    assert not (state_dir / "stack.json").exists()
    assert not list((state_dir / "run").glob("*.pid"))


def _produce(
    bootstrap: str, topic: str, messages: list[tuple[bytes, bytes, list[tuple[str, bytes]]]]
) -> None:
    kafka = KafkaSettings(bootstrap_servers=bootstrap, embedded=True)
    admin = AdminClient(kafka.client_config("admin"))
    for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        future.result(15)  # created, never auto-created: see loopline/stack/tansu_compat.py
    producer = Producer(kafka.client_config("producer"))
    for key, value, headers in messages:
        producer.produce(topic, key=key, value=value, headers=headers)
    assert producer.flush(15) == 0


def _consume(bootstrap: str, topic: str, count: int) -> list[Any]:
    config = KafkaSettings(bootstrap_servers=bootstrap, embedded=True).client_config("consumer")
    consumer = Consumer({**config, "group.id": "reader", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    got: list[Any] = []
    deadline = time.monotonic() + 15
    try:
        while len(got) < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                got.append(message)
    finally:
        consumer.close()
    return got


def test_events_written_before_down_are_read_after_up_on_the_s3_engine(state_dir: Path) -> None:
    assert loopline(state_dir, "up", "--ports", "auto", "--no-ui").returncode == 0
    before = recorded(state_dir)["endpoints"]["bootstrap_servers"]
    messages = [binary_mode_message(f"ep-{n}", {"n": n}) for n in range(3)]
    _produce(before, "durable.events", messages)
    assert loopline(state_dir, "down").returncode == 0

    assert loopline(state_dir, "up", "--ports", "auto", "--no-ui").returncode == 0
    after = recorded(state_dir)["endpoints"]["bootstrap_servers"]
    got = _consume(after, "durable.events", 3)

    assert [(m.key(), m.value(), m.headers()) for m in got] == messages


def test_a_second_up_reports_the_running_stack_and_starts_nothing(state_dir: Path) -> None:
    assert loopline(state_dir, "up", "--ports", "auto", "--broker-storage", "memory").returncode == 0
    first = recorded(state_dir)

    again = loopline(state_dir, "up", "--ports", "auto", "--broker-storage", "memory")
    status = loopline(state_dir, "status")

    assert again.returncode == 0, again.stderr
    assert "already running" in again.stdout
    assert recorded(state_dir)["processes"] == first["processes"]
    assert status.returncode == 0 and "running" in status.stdout


def test_status_says_stale_when_the_recorded_processes_are_gone(state_dir: Path) -> None:
    assert loopline(state_dir, "up", "--ports", "auto", "--broker-storage", "memory").returncode == 0
    state = recorded(state_dir)
    for record in state["processes"].values():
        os.kill(record["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while leftovers(state, state_dir) and time.monotonic() < deadline:
        time.sleep(0.05)

    stale = loopline(state_dir, "status", "--json")
    cleared = loopline(state_dir, "down")
    stopped = loopline(state_dir, "status")

    assert stale.returncode == 1
    report = json.loads(stale.stdout)
    assert report["overall"] == "stale"
    assert {c["state"] for c in report["components"]} == {"stale"}
    assert cleared.returncode == 0 and "already gone" in cleared.stdout
    assert stopped.returncode == 3 and "stopped" in stopped.stdout


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_a_taken_port_is_a_one_line_error_and_nothing_starts(state_dir: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        result = loopline(state_dir, "up", "--broker-storage", "memory", "--kafka-port", str(port), "--no-ui")

    line = _one_line_error(result)
    assert f"port {port}" in line and "--ports auto" in line and "LOOPLINE_PORTS__KAFKA" in line
    assert not (state_dir / "stack.json").exists()
    assert leftovers({"processes": {}}, state_dir) == []


def test_a_missing_binary_is_a_one_line_error_that_says_make_install(state_dir: Path) -> None:
    empty = state_dir.parent / "no-binaries"
    empty.mkdir()
    result = loopline(state_dir, "up", "--ports", "auto", LOOPLINE_BIN_DIR=str(empty))

    line = _one_line_error(result)
    assert "make install" in line and str(empty) in line


def test_external_mode_starts_nothing_and_status_checks_reachability(stack: Any, state_dir: Path) -> None:
    up = loopline(
        state_dir,
        "up",
        "--external",
        "--bootstrap-servers",
        stack.bootstrap_servers,
        "--temporal-address",
        stack.temporal_address,
    )
    mode = recorded(state_dir)["mode"]
    status = loopline(state_dir, "status")
    down = loopline(state_dir, "down")
    unreachable = loopline(
        state_dir.parent / "other",
        "up",
        "--external",
        "--bootstrap-servers",
        stack.bootstrap_servers,
        "--temporal-address",
        "127.0.0.1:1",
    )

    assert up.returncode == 0, up.stderr
    assert mode == "external"
    assert status.returncode == 0 and status.stdout.count("reachable") == 2
    assert down.returncode == 0 and "nothing was started" in down.stdout
    assert "127.0.0.1:1" in _one_line_error(unreachable)
