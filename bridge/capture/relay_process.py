"""`ProcessRelay`: the `KafkaRelay` in a child process, so its Python work never takes the agent's GIL.

The relay's work per event (building the Kafka record, `produce`, the delivery callback) is about
20 us of Python. On the agent's process it shares the GIL with the recording threads, and every
hand-over between the two costs a thread wake-up on each side: measured back to back, the capture
cost per tool call is 0.11 to 0.15 ms median with a p99 about 1 ms with a relay thread, against
about 0.10 ms and 0.5 to 0.7 ms with this (docs/capture.md).

The outbox stays in this process (it is opened in EXCLUSIVE mode, one process per file): the child
runs the very same `KafkaRelay` against an `OutboxProxy`, whose calls (`pending`, `mark_delivered`,
`pending_count`, ...) come back over a pipe to a server thread here that runs them on the real
outbox. Rows this process just appended are served from memory (`SqliteOutbox.pending`), so the
work left on this side is pickling rows and writing delivery marks.

Lifecycle: `start` spawns the child; `flush` waits on the outbox here; `close` flushes, then asks the
child to stop and joins it. If this process dies (SIGKILL included), the child's next call finds the
pipe closed and it exits; anything it produced but did not get marked is produced again by the next
relay (at least once, as ever). If the child dies (an OOM kill, a crash in librdkafka), the server
thread here starts a new one after a backoff (`restart`, on by default): it resumes from the outbox
like any restarted relay, and `metrics().relay_restarts` counts it. Without `restart`,
`metrics().running` turns false and what it left undelivered stays in the outbox.
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bridge.capture.outbox import PendingRecord, SqliteOutbox
from bridge.capture.outbox_rows import DeliveryMark, OutboxRow
from bridge.capture.relay import KafkaRelay
from bridge.capture.relay_report import RelayMetrics

_log = logging.getLogger(__name__)
_SERVED = frozenset(
    {
        "pending",
        "mark_delivered",
        "pending_count",
        "all_settled",
        "last_pos",
        "wait_for_append",
        "prune_expired",
    }
)
_REPORT = "report_metrics"
_START_TIMEOUT_S = 60.0
_REPORT_S = 0.5  # how often the child reports its counters and checks its parent
_STOP_POLL_S = 0.05
RELAY_NICE = 10
"""Niceness of the relay process: when every CPU is busy, the recording threads run first (measured
back to back on 2 vCPUs shared with the broker: 7 to 10 us less capture cost per tool call, median,
docs/capture.md). It still gets every idle cycle, and it holds none of the agent's locks (the
outbox calls run on a server thread of this process), so nothing waits on it."""
_RESTART_DELAY_S = (0.5, 30.0)
"""First and longest wait before a dead relay process is replaced (doubling while it keeps dying)."""
_HEALTHY_RUN_S = 60.0
"""A relay process that ran this long before dying starts the backoff over."""


class RemoteOutboxError(RuntimeError):
    """The outbox in the parent process refused a call, or the parent is gone."""


class OutboxProxy:
    """The relay's view of an outbox that lives in the parent process (`RelaySource`)."""

    def __init__(self, conn: multiprocessing.connection.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.broken = False

    def _call(self, method: str, *args: Any) -> Any:
        with self._lock:
            try:
                self._conn.send((method, args))
                status, value = self._conn.recv()
            except (EOFError, OSError) as exc:
                self.broken = True
                raise RemoteOutboxError(f"the capturing process is gone: {exc!r}") from None
        if status != "ok":
            raise RemoteOutboxError(str(value))
        return value

    def pending(self, after_pos: int, limit: int) -> list[OutboxRow]:
        """See `SqliteOutbox.pending` (rows travel as plain tuples: cheaper to pickle)."""
        records: list[PendingRecord] = self._call("pending", after_pos, limit)
        return [OutboxRow(*record, None, None, None) for record in records]

    def mark_delivered(self, marks: Sequence[DeliveryMark]) -> None:
        """See `SqliteOutbox.mark_delivered`."""
        self._call("mark_delivered", list(marks))

    def pending_count(self, upto_pos: int | None = None) -> int:
        """See `SqliteOutbox.pending_count`."""
        return int(self._call("pending_count", upto_pos))

    def all_settled(self, upto_pos: int | None = None) -> bool:
        """See `SqliteOutbox.all_settled`."""
        return bool(self._call("all_settled", upto_pos))

    def last_pos(self) -> int:
        """See `SqliteOutbox.last_pos`."""
        return int(self._call("last_pos"))

    def wait_for_append(self, timeout: float) -> bool:
        """See `SqliteOutbox.wait_for_append`."""
        return bool(self._call("wait_for_append", timeout))

    def prune_expired(self, retention_s: float, head_retention_s: float | None, *, budget_s: float) -> int:
        """See `SqliteOutbox.prune_expired`."""
        return int(self._call("prune_expired", retention_s, head_retention_s, budget_s))

    @property
    def commits(self) -> int:
        """Not asked over the pipe: a relay process has a GIL of its own and never yields it."""
        return 0

    def report(self, metrics: RelayMetrics) -> None:
        """Hand the relay's counters to the parent (for `ProcessRelay.metrics`)."""
        self._call(_REPORT, metrics)


def _child_main(
    conn: multiprocessing.connection.Connection,
    stop: Any,
    topic: str,
    kafka_config: dict[str, Any],
    options: dict[str, Any],
    close_timeout: Any,
    nice: int = 0,
) -> None:
    """The child: run a `KafkaRelay` on the proxy until told to stop or the parent is gone.

    `stop` and `close_timeout` are lock-free shared values, polled: a `multiprocessing.Event` would
    hang the parent's `set()` for good if this process were killed while waiting on it (its
    condition waits for every sleeper to acknowledge, and a dead one never does)."""
    parent = os.getppid()
    if nice:
        os.nice(nice)  # background work: the agents' threads go first when the CPUs are busy
    proxy = OutboxProxy(conn)
    # Its own interpreter: no agent thread to hand the GIL to.
    relay = KafkaRelay(proxy, topic=topic, kafka_config=kafka_config, yield_gil=False, **options).start()
    next_report = time.monotonic() + _REPORT_S
    while not stop.value:
        time.sleep(_STOP_POLL_S)
        if time.monotonic() < next_report:
            continue
        next_report = time.monotonic() + _REPORT_S
        if proxy.broken or os.getppid() != parent:
            relay.abandon()  # nobody left to mark deliveries for: stop without flushing
            return
        try:
            proxy.report(relay.metrics(pending=-1))
        except RemoteOutboxError:
            continue
    try:
        relay.close(close_timeout.value)
        proxy.report(relay.metrics(pending=-1))
    except RemoteOutboxError:
        relay.abandon()


class ProcessRelay:
    """Drains one `SqliteOutbox` into one topic from a child process; same controls as `KafkaRelay`."""

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
        self.topic = topic
        self._outbox = outbox
        self._kafka_config = dict(kafka_config)
        self._options = options
        self._restart = restart
        self._nice = nice
        self._closing = threading.Event()
        self._started_at = 0.0
        self._restarts = 0
        self._carried: RelayMetrics | None = None  # counters of the relay processes that died
        context = multiprocessing.get_context("spawn")
        self._context = context
        self._stop = context.RawValue("b", 0)  # lock-free: see _child_main
        self._close_timeout = context.RawValue("d", 10.0)
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: multiprocessing.connection.Connection | None = None
        self._server: threading.Thread | None = None
        self._metrics: RelayMetrics | None = None
        self._closed: bool | None = None

    def start(self) -> ProcessRelay:
        """Spawn the child and the thread that serves its outbox calls (once)."""
        if self._process is not None:
            return self
        self._spawn()
        self._server = threading.Thread(
            target=self._serve, name=f"capture-relay-server-{self.topic}", daemon=True
        )
        self._server.start()
        return self

    def _spawn(self) -> None:
        ours, theirs = self._context.Pipe()
        args = (
            theirs, self._stop, self.topic, self._kafka_config, self._options, self._close_timeout, self._nice,
        )  # fmt: skip
        process = self._context.Process(
            target=_child_main, args=args, name=f"capture-relay-{self.topic}", daemon=True
        )
        process.start()
        theirs.close()
        self._process, self._conn, self._started_at = process, ours, time.monotonic()

    def _replace_dead_child(self, delay: float) -> float | None:
        """After the child's pipe closed: start a new child and return the next delay, or None when
        the relay is closing (or not restarting)."""
        if self._closing.is_set() or not self._restart:
            return None
        process = self._process
        assert process is not None and self._conn is not None
        process.join(1)
        ran = time.monotonic() - self._started_at
        delay = _RESTART_DELAY_S[0] if ran >= _HEALTHY_RUN_S else delay
        _log.error(
            "relay process %s exited (code %s) after %.1f s; starting a new one in %.1f s",
            process.pid, process.exitcode, ran, delay,
        )  # fmt: skip
        if self._closing.wait(delay):
            return None
        self._conn.close()
        self._carried = _added(self._carried, self._metrics)
        self._metrics = None
        self._spawn()
        self._restarts += 1
        return min(_RESTART_DELAY_S[1], delay * 2)

    def _serve(self) -> None:
        delay: float | None = _RESTART_DELAY_S[0]
        while True:
            assert self._conn is not None
            try:
                method, args = self._conn.recv()
            except (EOFError, OSError):  # the child is gone
                delay = self._replace_dead_child(delay or _RESTART_DELAY_S[0])
                if delay is None:
                    return
                continue
            try:
                if method == _REPORT:
                    self._metrics = args[0]
                    reply: tuple[str, Any] = ("ok", None)
                elif method in _SERVED:
                    reply = ("ok", self._run(method, args))
                else:
                    reply = ("error", f"the outbox serves no {method!r}")
            except Exception as exc:  # the child's relay decides what a failure means
                reply = ("error", f"{type(exc).__name__}: {exc}")
            try:
                self._conn.send(reply)
            except (OSError, ValueError):
                continue  # the child is gone: the next recv says so

    def _run(self, method: str, args: tuple[Any, ...]) -> Any:
        if method == "prune_expired":
            retention_s, head_retention_s, budget_s = args
            return self._outbox.prune_expired(retention_s, head_retention_s, budget_s=budget_s)
        if method == "pending":
            return self._outbox.pending_records(*args)
        return getattr(self._outbox, method)(*args)

    @property
    def pid(self) -> int | None:
        """The relay process's pid (None before `start`)."""
        return self._process.pid if self._process is not None else None

    def flush(self, timeout: float) -> bool:
        """Wait until every event appended before this call has a delivery report (or was rejected for
        good: `metrics().rejected`); False on timeout."""
        if self._process is None:
            raise RuntimeError("the relay process was never started; call start() first")
        target = self._outbox.last_pos()
        deadline = time.monotonic() + timeout
        while not self._outbox.all_settled(target):
            if time.monotonic() >= deadline or not (self._restart or self._process.is_alive()):
                return False
            time.sleep(0.02)
        return True

    def close(self, timeout: float = 10.0) -> bool:
        """Flush for up to `timeout`, stop the child, and say whether every event was delivered or
        rejected.

        What is still undelivered stays in the outbox for the next start. Idempotent.
        """
        if self._closed is not None:
            return self._closed
        running = self._process is not None and (self._restart or self._process.is_alive())
        flushed = self.flush(timeout) if running else self._outbox.all_settled()
        self._closing.set()  # no more restarts
        self._close_timeout.value = 1.0
        self._stop.value = 1
        for _ in range(2):  # the one running, and one the server thread may have been starting
            process = self._process
            if process is not None:
                process.join(_START_TIMEOUT_S)
                if process.is_alive():
                    _log.warning("relay process %s did not stop; terminating it", process.pid)
                    process.terminate()
                    process.join(5)
            if self._server is not None:
                self._server.join(5)
            if self._process is process:
                break
        if self._conn is not None:
            self._conn.close()
        self._closed = flushed
        return flushed

    def metrics(self) -> RelayMetrics:
        """The child's last reported counters, with pending from the outbox here."""
        running = self._process is not None and self._process.is_alive()
        last = _added(self._carried, self._metrics) or RelayMetrics(
            pending=0, in_flight=0, delivered=0, failed=0, rejected=0, producer_restarts=0,
            last_error=None, last_error_at=None, running=running,
        )  # fmt: skip
        return dataclasses.replace(
            last, pending=self._outbox.pending_count(), running=running, relay_restarts=self._restarts
        )

    def __enter__(self) -> ProcessRelay:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.close()


def _added(earlier: RelayMetrics | None, current: RelayMetrics | None) -> RelayMetrics | None:
    """The counters of a relay process that died, added to its successor's (the newest error wins)."""
    if earlier is None or current is None:
        return current or earlier
    return dataclasses.replace(
        current,
        delivered=earlier.delivered + current.delivered,
        failed=earlier.failed + current.failed,
        rejected=earlier.rejected + current.rejected,
        producer_restarts=earlier.producer_restarts + current.producer_restarts,
        last_error=current.last_error or earlier.last_error,
        last_error_at=current.last_error_at or earlier.last_error_at,
    )
