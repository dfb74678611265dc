"""The demo's streams worker: the projector + detector as a separate process, as in production."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from loopline.kafka.settings import KafkaSettings
from loopline.streams.event_keys import checkpoint_key_file, public_file, role_file


@contextmanager
def streams_worker(
    workdir: Path,
    kafka: KafkaSettings,
    db_url: str,
    topic: str,
    vocabulary: Path,
    log_name: str = "streams-worker",
) -> Iterator[None]:
    """The projector + detector as a separate process, as in production; stopped with SIGTERM. It
    verifies with the public keys of the run's key folder and signs with the detector's key only."""
    keys = workdir / "keys"
    env = {
        **os.environ,
        "LOOPLINE_EVENT_KEYS_FILE": str(public_file(keys)),
        "LOOPLINE_DETECTOR_KEY_FILE": str(role_file("detector", keys)),
        "LOOPLINE_STREAMS_CHECKPOINT_KEY_FILE": str(checkpoint_key_file("detector", keys)),
        "LOOPLINE_STREAMS_CHECKPOINT_DIR": str(workdir / "checkpoints"),
        "LOOPLINE_KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap_servers,
        "LOOPLINE_KAFKA_EMBEDDED": "true" if kafka.embedded else "false",
        "LOOPLINE_KNOWN_VOCABULARY_FILE": str(vocabulary),
    }
    command = [
        sys.executable,
        "-m",
        "loopline.cli",
        "streams",
        "worker",
        "--db-url",
        db_url,
        "--events-topic",
        topic,
        "--dlq-topic",
        topic.replace(".events.", ".dlq."),
        "--app-id",
        f"{topic}-streams",
        "--loglevel",
        "warning",
    ]
    log = (workdir / f"{log_name}.log").open("w")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
