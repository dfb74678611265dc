"""A faust agent in its own worker process consumes from the embedded broker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from tests.integration.ce_messages import binary_mode_message

pytestmark = pytest.mark.integration
REPO = Path(__file__).parents[2]


def _wait_for_lines(out: Path, worker: subprocess.Popen[bytes], log: Path, timeout_s: float) -> list[Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if out.exists() and out.read_text().strip():
            return [json.loads(line) for line in out.read_text().splitlines()]
        if worker.poll() is not None:
            raise AssertionError(f"faust worker exited ({worker.returncode}):\n{log.read_text()[-3000:]}")
        time.sleep(0.1)
    raise AssertionError(f"faust saw nothing in {timeout_s} s:\n{log.read_text()[-3000:]}")


def test_a_faust_agent_in_a_worker_process_sees_the_event_with_key_and_headers(
    stack: Any, kafka_config: dict[str, Any], kafka_topic: str, tmp_path: Path
) -> None:
    key, value, headers = binary_mode_message("ep-7", {"claim": "CLM-7"})
    producer = Producer(kafka_config)
    producer.produce(kafka_topic, key=key, value=value, headers=headers)
    assert producer.flush(15) == 0

    out, log = tmp_path / "seen.jsonl", tmp_path / "worker.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        "ECHO_APP_ID": f"{kafka_topic}.echo",
        "ECHO_BOOTSTRAP": stack.bootstrap_servers,
        "ECHO_TOPIC": kafka_topic,
        "ECHO_OUT": str(out),
    }
    argv = [sys.executable, "-m", "faust", "-A", "tests.integration.faust_echo_app", "worker", "-l", "warn"]
    with log.open("wb") as sink:
        worker = subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
    try:
        seen = _wait_for_lines(out, worker, log, timeout_s=60)
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(5)

    assert seen[0]["key"] == "ep-7"
    assert json.loads(seen[0]["value"]) == {"claim": "CLM-7"}
    assert seen[0]["headers"] == {name: raw.decode() for name, raw in headers}
