"""A throwaway in-memory Tansu on a free loopback port, for benches and broker-outage tests.

Unlike `loopline up` it is one process with no state folder bookkeeping: `kill` is SIGKILL and
`start` brings it back on the same port (empty, since its storage is memory).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from loopline.stack import components
from loopline.stack.binaries import tansu_bin
from loopline.stack.ports import pick_free_ports
from loopline.stack.readiness import accepts_connections


class ScratchBroker:
    """One memory-backed Tansu process on a fixed free port."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.ports = pick_free_ports(["kafka"])
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap_servers(self) -> str:
        return f"127.0.0.1:{self.ports.kafka}"

    def config(self) -> dict[str, Any]:
        """A minimal confluent-kafka client config for it."""
        return {"bootstrap.servers": self.bootstrap_servers, "broker.address.family": "v4"}

    def start(self, timeout_s: float = 10.0) -> None:
        """Start the broker and wait until it accepts connections (RuntimeError after `timeout_s`)."""
        spec = components.tansu(tansu_bin(), self.ports, "memory", None)
        self.folder.mkdir(parents=True, exist_ok=True)
        with (self.folder / "tansu.log").open("ab") as log:
            self._proc = subprocess.Popen(spec.argv, env=spec.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while not accepts_connections(self.ports.kafka):
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"tansu did not listen on {self.bootstrap_servers} (log: {self.folder})")
            time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL the broker this object started and reap it."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()


@contextmanager
def scratch_broker(folder: Path) -> Iterator[ScratchBroker]:
    """A started `ScratchBroker`, killed when the block exits."""
    broker = ScratchBroker(folder)
    broker.start()
    try:
        yield broker
    finally:
        broker.kill()
