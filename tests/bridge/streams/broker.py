"""Real-broker helpers for the streams integration tests: producing, and a worker process.

The worker logs to a file next to the test; `LOOPLINE_TEST_WORKER_LOGLEVEL=info` makes it chatty.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from confluent_kafka import Producer

from schemas import Event, to_kafka


def produce(
    bootstrap: str,
    topic: str,
    events: Sequence[Event] = (),
    raw: Sequence[tuple[bytes | None, bytes | None, list[tuple[str, bytes]]]] = (),
    *,
    partition_of: Callable[[Event], int] | None = None,
) -> None:
    """Produce `events` (binary mode) and `raw` (key, value, headers) messages, and wait for the acks.

    `partition_of` pins each event's partition (default: the key's hash, as in production).
    """
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "broker.address.family": "v4",
            "linger.ms": 5,
            "message.max.bytes": 4_000_000,
        }
    )
    for event in events:
        record = to_kafka(event)
        pinned = {} if partition_of is None else {"partition": partition_of(event)}
        producer.produce(topic, key=record.key, value=record.value, headers=record.headers, **pinned)
    for key, value, headers in raw:
        producer.produce(topic, key=key, value=value, headers=headers)
    assert producer.flush(30) == 0, "messages left unacknowledged"


class WorkerProcess:
    """`loopline streams worker` in a child process, with its log in a file."""

    def __init__(self, bootstrap: str, db_url: str, topic: str, dlq: str, log: Path, *, group: str) -> None:
        env = {
            **os.environ,
            "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": bootstrap,
            "LOOPLINE_KAFKA_SESSION_TIMEOUT_MS": "4000",
            "LOOPLINE_STREAMS_BATCH_SIZE": "50",
        }
        argv = [
            sys.executable, "-c", "from loopline.cli import main; main()", "streams", "worker",
            "--db-url", db_url, "--events-topic", topic, "--dlq-topic", dlq, "--app-id", group,
            "--loglevel", os.environ.get("LOOPLINE_TEST_WORKER_LOGLEVEL", "warning"),
        ]  # fmt: skip
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def kill(self) -> None:
        """SIGKILL: no flush, no offset commit, as a crash would."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def wait_until(check: Callable[[], bool], what: str, worker: WorkerProcess, timeout_s: float = 60.0) -> None:
    """Poll `check` until true; fail with the worker's log when it does not become true in time."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if worker.proc.poll() is not None:
            raise AssertionError(
                f"worker exited ({worker.proc.returncode}) waiting for {what}:\n{worker.tail()}"
            )
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}:\n{worker.tail()}")
        time.sleep(0.1)
