"""`KafkaRelay` (a thread) and `ProcessRelay` (a child process): start, flush and close a `RelayLoop`.

The loop opens the outbox's files itself; only a stop flag and its counters pass between it and its
owner (shared memory), and `flush` waits on the outbox. A relay process exits, unflushed, once its
parent is gone (SIGKILL included): the next relay sends what it did not mark. A dead relay is
replaced after a backoff (`restart`); without `restart`, `metrics().running` turns false.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from bridge.capture.outbox import SqliteOutbox
from bridge.capture.relay_loop import RelayLoop

_log = logging.getLogger(__name__)
RELAY_NICE = 10
_POLL_S = 0.05
_STOP_TIMEOUT_S = 60.0  # a relay process still importing sees the stop flag only once it runs
_RESTART_DELAY_S = (0.5, 30.0)  # first and longest wait before a dead relay is replaced
_HEALTHY_RUN_S = 60.0  # a relay that ran this long before dying starts the backoff over
_SUMMED = ("delivered", "failures", "rejected", "producer_restarts")


@dataclass(frozen=True)
class RelayMetrics:
    """A snapshot of the relay's state."""

    pending: int
    """Outbox rows without a delivery report (in flight included)."""
    in_flight: int
    """Rows handed to the producer that have no report yet."""
    delivered: int
    """Successful delivery reports received by this relay."""
    failed: int
    """Failed delivery attempts (each such row is produced again)."""
    rejected: int
    """Rows given up on for good (too large, unreadable): kept in the outbox, not shipped."""
    producer_restarts: int
    """Producers discarded after a fatal error or passes without a delivery."""
    last_error: str | None
    """The most recent error, in words."""
    last_error_at: float | None
    """When it happened (Unix time)."""
    running: bool
    """Whether the relay (its thread, or its process) is alive."""
    relay_restarts: int = 0
    """Relay processes started again after one died (`ProcessRelay`); 0 for a relay thread."""


def run_relay(
    path: Path,
    topic: str,
    kafka_config: dict[str, Any],
    options: dict[str, Any],
    stop: Any,
    counters: Any,
    error: Any,
    nice: int,
    parent: int | None,
) -> None:
    """Run a `RelayLoop` until `stop` rises or the process `parent` is gone (its pid comes from the
    parent, which may be gone before this runs; None on a thread), publishing its counters on top
    of those its dead predecessors left."""
    if nice:
        os.nice(nice)
    loop = RelayLoop(path, topic=topic, kafka_config=kafka_config, **options)
    base = list(counters)

    def report(loop: RelayLoop) -> None:
        for index, name in enumerate(_SUMMED):
            counters[index] = base[index] + getattr(loop, name)
        counters[4] = len(loop.in_flight)
        if loop.errors.last is not None and loop.errors.last[1] != counters[5]:
            error.value = loop.errors.last[0].encode(errors="replace")[: len(error) - 1]
            counters[5] = loop.errors.last[1]

    def wait(seconds: float) -> bool:
        report(loop)
        deadline = time.monotonic() + seconds
        while not (stop.value or (parent is not None and os.getppid() != parent)):
            if (left := deadline - time.monotonic()) <= 0:
                return False
            time.sleep(min(left, _POLL_S))
        return True

    loop.run(wait, report)


class KafkaRelay:
    """Drains one outbox into one topic from a thread of this process. Start it, `flush` it, `close` it."""

    in_child: ClassVar[bool] = False

    def __init__(
        self,
        outbox: SqliteOutbox,
        *,
        topic: str,
        kafka_config: Mapping[str, Any],
        restart: bool = True,
        nice: int = RELAY_NICE,
        **options: Any,
    ) -> None:
        self.topic, self._outbox, self._restart = topic, outbox, restart
        self._context = multiprocessing.get_context("spawn")
        self._stop = self._context.RawValue("b", 0)
        self._counters = self._context.RawArray("d", 6)  # _SUMMED, in flight, time of the last error
        self._error = self._context.RawArray("c", 1024)
        self._args = (
            outbox.path,
            topic,
            dict(kafka_config),
            options,
            self._stop,
            self._counters,
            self._error,
            nice if self.in_child else 0,
            os.getpid() if self.in_child else None,
        )
        self._worker: threading.Thread | multiprocessing.process.BaseProcess | None = None
        self._watcher: threading.Thread | None = None
        self._closing = threading.Event()
        self._started_at, self._restarts = 0.0, 0
        self._closed: bool | None = None

    def start(self) -> Self:
        """Start the relay, and the thread that replaces it when it dies (once)."""
        if self._worker is None:
            self._spawn()
            self._watcher = threading.Thread(
                target=self._watch, name=f"capture-relay-watch-{self.topic}", daemon=True
            )
            self._watcher.start()
        return self

    def _spawn(self) -> None:
        name = f"capture-relay-{self.topic}"
        kind = self._context.Process if self.in_child else threading.Thread
        worker = kind(target=run_relay, args=self._args, name=name, daemon=True)
        worker.start()
        self._worker, self._started_at = worker, time.monotonic()

    def _watch(self) -> None:
        delay = _RESTART_DELAY_S[0]
        while (worker := self._worker) is not None:
            worker.join()
            if self._closing.is_set() or not self._restart:
                return
            ran = time.monotonic() - self._started_at
            delay = _RESTART_DELAY_S[0] if ran >= _HEALTHY_RUN_S else delay
            _log.error(
                "relay %s exited (code %s) after %.1f s; starting a new one in %.1f s",
                self.pid,
                getattr(worker, "exitcode", None),
                ran,
                delay,
            )
            if self._closing.wait(delay):
                return
            self._spawn()
            self._restarts += 1
            delay = min(_RESTART_DELAY_S[1], delay * 2)

    @property
    def pid(self) -> int | None:
        """The relay process's pid (None for a relay thread, or before `start`)."""
        return getattr(self._worker, "pid", None)

    def _alive(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def flush(self, timeout: float) -> bool:
        """Wait until every event appended before this call has a delivery report (or was rejected
        for good: `metrics().rejected`); False on timeout, or when no relay is left to deliver."""
        if self._worker is None:
            raise RuntimeError("the relay was never started; call start() first")
        target, deadline = self._outbox.last_pos(), time.monotonic() + timeout
        while not self._outbox.all_settled(target):
            if time.monotonic() >= deadline or not (self._restart or self._alive()):
                return False
            time.sleep(0.02)
        return True

    def close(self, timeout: float = 10.0) -> bool:
        """Flush for up to `timeout`, stop, and say whether every event was delivered or rejected.
        What is still undelivered stays in the outbox for the next start. Idempotent."""
        if self._closed is not None:
            return self._closed
        running = self._worker is not None and (self._restart or self._alive())
        self._closed = self.flush(timeout) if running else self._outbox.all_settled()
        self._closing.set()  # no more restarts
        self._stop.value = 1
        if self._watcher is not None:
            self._watcher.join(_STOP_TIMEOUT_S)  # it returns once the relay it watches has stopped
        if isinstance(worker := self._worker, multiprocessing.process.BaseProcess) and worker.is_alive():
            _log.warning("relay process %s did not stop; terminating it", worker.pid)
            worker.terminate()
            worker.join(5)
        return self._closed

    def metrics(self) -> RelayMetrics:
        """The relay's counters as it last published them, with pending read from the outbox."""
        delivered, failed, rejected, producer_restarts, in_flight, error_at = self._counters
        return RelayMetrics(
            pending=self._outbox.pending_count(),
            in_flight=int(in_flight),
            delivered=int(delivered),
            failed=int(failed),
            rejected=int(rejected),
            producer_restarts=int(producer_restarts),
            last_error=self._error.value.decode(errors="replace") or None,
            last_error_at=error_at or None,
            running=self._alive(),
            relay_restarts=self._restarts,
        )

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.close()


class ProcessRelay(KafkaRelay):
    """`KafkaRelay` in a child process, off the recording threads' GIL, niced (`nice`): when every CPU
    is busy the agents run first, and it holds no lock an append waits for."""

    in_child = True
