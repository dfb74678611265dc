"""A recording process killed with SIGKILL ten times loses no event whose append had returned."""

from __future__ import annotations

import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bridge.capture import KafkaRelay, SqliteOutbox
from schemas import verify_chain
from tests.bridge.capture.brokers import create_topic, read_topic

pytestmark = pytest.mark.integration

CHILD = Path(__file__).with_name("sigkill_child.py")
REPO = Path(__file__).resolve().parents[3]


class Child:
    """One run of the recording process, its stdout read line by line as it goes."""

    def __init__(self, argv: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.append(raw.decode().strip())

    def kill_after(self, min_lines: int, delay_s: float, timeout_s: float = 20.0) -> list[str]:
        """Wait for `min_lines` appends, let it run `delay_s` more, SIGKILL it; every line it printed."""
        deadline = time.monotonic() + timeout_s
        while len(self.lines) < min_lines:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise AssertionError(f"child stopped early or stalled: {err[-2000:]}")
            time.sleep(0.01)
        time.sleep(delay_s)
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self._reader.join()  # the pipe still holds what it printed before dying
        return [line for line in self.lines if line]


def test_no_returned_append_is_lost_across_ten_sigkills(
    tmp_path: Path, kafka_config: dict[str, Any], unique_topic: str
) -> None:
    create_topic(kafka_config, unique_topic)
    outbox_path, vault_url, key = (
        tmp_path / "outbox.db",
        f"sqlite:///{tmp_path / 'vault.db'}",
        secrets.token_hex(32),
    )
    bootstrap = kafka_config["bootstrap.servers"]
    rng = random.Random(20250301)
    promised: dict[str, tuple[str, int]] = {}
    resume: str | None = None
    for _round in range(10):
        argv = [sys.executable, str(CHILD), str(outbox_path), vault_url, key, "--bootstrap", bootstrap,
                "--topic", unique_topic]  # fmt: skip
        if resume:
            argv += ["--resume", resume]
        lines = Child(argv).kill_after(min_lines=5, delay_s=rng.uniform(0.0, 0.3))
        for line in lines:
            event_id, episode_id, seq = line.split()
            promised[event_id] = (episode_id, int(seq))
        resume = lines[-1].split()[1]  # the episode it was in the middle of

    outbox = SqliteOutbox(outbox_path)
    try:
        stored = {row.event_id: (row.episode_id, row.seq) for row in outbox.rows()}
        lost = {event_id for event_id in promised if event_id not in stored}
        assert not lost, f"{len(lost)} events were acknowledged to the caller but are gone"
        assert all(stored[event_id] == where for event_id, where in promised.items())
        episodes = {episode for episode, _ in stored.values()}
        for episode in episodes:  # resumed across kills, still one gap-free verified chain
            assert verify_chain(outbox.events(episode)) is None, episode

        relay = KafkaRelay(outbox, topic=unique_topic, kafka_config=kafka_config).start()
        assert relay.close(timeout=30), relay.metrics()
        assert outbox.pending_count() == 0
        on_topic = {msg.event_id for msg in read_topic(kafka_config, unique_topic, set(stored))}
        assert set(stored) <= on_topic
    finally:
        outbox.close()
