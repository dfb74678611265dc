"""A private Tansu broker (memory storage) started through loopline.stack, and topic helpers.

The shared session broker cannot be stopped by one test, so outage tests start their own.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from loopline.stack import components
from loopline.stack.binaries import tansu_bin
from loopline.stack.ports import pick_free_ports
from loopline.stack.readiness import accepts_connections


class PrivateBroker:
    """One Tansu process on a fixed free port; `kill` is SIGKILL, `start` comes back on the same port."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.ports = pick_free_ports(["kafka"])
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap_servers(self) -> str:
        return f"127.0.0.1:{self.ports.kafka}"

    def config(self) -> dict[str, Any]:
        return {"bootstrap.servers": self.bootstrap_servers, "broker.address.family": "v4"}

    def start(self, timeout_s: float = 10.0) -> None:
        spec = components.tansu(tansu_bin(), self.ports, "memory", None)
        self.folder.mkdir(parents=True, exist_ok=True)
        with (self.folder / "tansu.log").open("ab") as log:
            self._proc = subprocess.Popen(spec.argv, env=spec.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while not accepts_connections(self.ports.kafka):
            if time.monotonic() > deadline:
                raise RuntimeError(f"tansu did not listen on {self.bootstrap_servers}")
            time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL the broker this object started and reap it."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()


def create_topic(config: dict[str, Any], topic: str, partitions: int = 3) -> None:
    """Create `topic` (an existing one is fine)."""
    admin = AdminClient(config)
    for future in admin.create_topics([NewTopic(topic, partitions, 1)], request_timeout=10).values():
        try:
            future.result(timeout=10)
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise


@dataclass(frozen=True)
class Consumed:
    """One message read back from the topic."""

    key: bytes
    value: bytes
    headers: list[tuple[str, bytes]]
    partition: int
    offset: int

    @property
    def event_id(self) -> str:
        return dict(self.headers)["ce_id"].decode()


def read_topic(
    config: dict[str, Any],
    topic: str,
    expect_ids: set[str],
    *,
    timeout_s: float = 30.0,
    settle_s: float = 0.5,
) -> list[Consumed]:
    """Every message of `topic` from the beginning, until all `expect_ids` were seen and `settle_s`
    more passed without news (to catch duplicates), or `timeout_s`.

    Partitions are assigned by hand from offset 0: no group join to wait for, and no reliance on
    the watermarks Tansu under-reports (design.md section 6).
    """
    consumer = Consumer({**config, "group.id": f"capture-test-{topic}", "enable.auto.commit": False})
    try:
        metadata = consumer.list_topics(topic, timeout=10)
        partitions = sorted(metadata.topics[topic].partitions)
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        seen: list[Consumed] = []
        ids: set[str] = set()
        deadline = time.monotonic() + timeout_s
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            batch = consumer.consume(1000, 0.1)
            for msg in batch:
                if msg.error():
                    continue
                raw_headers = msg.headers() or []
                headers = [(str(k), v if isinstance(v, bytes) else b"") for k, v in list(raw_headers)]
                item = Consumed(
                    msg.key() or b"", msg.value() or b"", headers, msg.partition() or 0, msg.offset() or 0
                )
                seen.append(item)
                ids.add(item.event_id)
            if batch:
                quiet_since = time.monotonic()
            if expect_ids <= ids and time.monotonic() - quiet_since >= settle_s:
                break
        return seen
    finally:
        consumer.close()
