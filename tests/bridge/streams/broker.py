"""Real-broker helpers for the streams integration tests: producing, and a worker process.

The worker logs to a file next to the test; `LOOPLINE_TEST_WORKER_LOGLEVEL=info` makes it chatty.
It authenticates every event against the test producers' public keys (`producer_keyring`) written
next to its log, holding the detector's private key only (`detector-key.json`), and `produce` signs
each event with its source's test key, as a named producer would.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from confluent_kafka import Producer

from bridge.audit.event_keys import EventKey, Keyring, save_keyring
from loopline.streams.event_keys import ensure_keys, role_file
from schemas import Event, to_kafka
from schemas.codec import to_structured

TEST_SOURCES = (
    "loopline://bridge/test", "loopline://bridge/detect", "loopline://workflows/promotion",
    "loopline://training/release",
)  # fmt: skip
"""The producers a test worker accepts: the test episodes' source (a bridge's), its own detector,
the promotion workflow and the release manager."""
DETECT_SOURCE = "loopline://bridge/detect"


def producer_key(source: str) -> EventKey:
    """The deterministic Ed25519 test key of `source` (its seed derived from the name: tests only)."""
    return EventKey(
        f"test-{hashlib.sha256(source.encode()).hexdigest()[:8]}",
        source,
        hashlib.sha256(b"test:" + source.encode()).digest(),
        "ed25519",
    )


def producer_keyring(sources: Sequence[str] = TEST_SOURCES) -> Keyring:
    """The verifiers' keyring of `sources`: their test keys' public halves only."""
    return Keyring(producer_key(source).public() for source in sources)


def produce(
    bootstrap: str,
    topic: str,
    events: Sequence[Event] = (),
    raw: Sequence[tuple[bytes | None, bytes | None, list[tuple[str, bytes]]]] = (),
    *,
    partition_of: Callable[[Event], int] | None = None,
    sign: bool = True,
) -> None:
    """Produce `events` (binary mode) and `raw` (key, value, headers) messages, and wait for the acks.

    `partition_of` pins each event's partition (default: the key's hash, as in production); `sign`
    MACs each event with its source's test key.
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
        mac = producer_key(event.source).headers_for(to_structured(event)) if sign else []
        pinned = {} if partition_of is None else {"partition": partition_of(event)}
        producer.produce(topic, key=record.key, value=record.value, headers=[*record.headers, *mac], **pinned)
    for key, value, headers in raw:
        producer.produce(topic, key=key, value=value, headers=headers)
    assert producer.flush(30) == 0, "messages left unacknowledged"


class WorkerProcess:
    """`loopline streams worker` in a child process, with its log in a file."""

    def __init__(
        self, bootstrap: str, db_url: str, topic: str, dlq: str, log: Path, *, group: str,
        env_extra: dict[str, str] | None = None, args: Sequence[str] = (),
    ) -> None:  # fmt: skip
        self.keys_file = log.parent / "event-keys.json"
        self.detector_key_file = log.parent / "detector-key.json"
        if not self.keys_file.exists():
            save_keyring(self.keys_file, producer_keyring())
        if not self.detector_key_file.exists():
            save_keyring(self.detector_key_file, Keyring([producer_key(DETECT_SOURCE)]))
        env = {
            **os.environ,
            "LOOPLINE_EVENT_KEYS_FILE": str(self.keys_file),
            "LOOPLINE_DETECTOR_KEY_FILE": str(self.detector_key_file),
            **(env_extra or {}),
            "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": bootstrap,
            "LOOPLINE_KAFKA_SESSION_TIMEOUT_MS": "4000",
            "LOOPLINE_STREAMS_BATCH_SIZE": "50",
        }
        argv = [
            sys.executable, "-c", "from loopline.cli import main; main()", "streams", "worker",
            "--db-url", db_url, "--events-topic", topic, "--dlq-topic", dlq, "--app-id", group,
            "--loglevel", os.environ.get("LOOPLINE_TEST_WORKER_LOGLEVEL", "warning"), *args,
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


def write_test_keys(folder: Path) -> tuple[Path, Path]:
    """(public keyring, detector key file) of the test producers, written under `folder`: what an
    in-process `StreamsConfig` takes as `event_keys_file` and `signing_key_file`."""
    public, detector = folder / "event-keys.json", folder / "detector-key.json"
    save_keyring(public, producer_keyring())
    save_keyring(detector, Keyring([producer_key(DETECT_SOURCE)]))
    return public, detector


def embedded_worker_keys(folder: Path) -> Path:
    """The embedded stack's keys under `folder/keys` (as `loopline up` makes them), with the public
    keyring and the detector's key copied where a `WorkerProcess` logging into `folder` reads them;
    returns the bridge's private key file (a `BridgeSettings.event_keys_file`)."""
    public = ensure_keys(folder / "keys")
    shutil.copy(public, folder / "event-keys.json")
    shutil.copy(role_file("detector", folder / "keys"), folder / "detector-key.json")
    return role_file("bridge", folder / "keys")
