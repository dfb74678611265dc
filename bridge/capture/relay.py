"""`KafkaRelay`: a background thread that ships the outbox to Kafka, at least once, in append order.

The only module that imports confluent_kafka (design.md §2). It guarantees:
- a row is marked delivered only from a successful delivery report (`acks=all`, idempotent
  producer), with the partition and offset the broker gave;
- it never blocks the agent: appenders share only the outbox write lock with it;
- failures are retried forever with backoff: librdkafka retries transient errors within
  `message.timeout.ms`; what still fails is produced again from the outbox once every report of
  the pass is in; a fatal or wedged producer is replaced by a new one (new producer id);
- a restarted process resumes from the outbox: rows with a delivery report are never re-sent,
  rows without one are, so consumers deduplicate on (source, id) (design.md §3);
- a row that can never be produced (larger than the producer or broker accepts, or unreadable)
  does not hold up the rows behind it: it is rejected, i.e. settled in the outbox with the reason,
  kept there (never pruned) for an operator, counted in `metrics().rejected` and logged.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from bridge.capture.outbox import YIELD_S
from bridge.capture.outbox_rows import DeliveryMark, OutboxRow
from bridge.capture.relay_report import ErrorReport, RelayMetrics

_log = logging.getLogger(__name__)
_MARK_BATCH = 4096  # delivery marks gathered before they are written (or _MARK_AGE_S, or idle)
_MARK_AGE_S = 0.25
_CYCLE_S = 0.005  # shortest cycle unless draining a backlog (librdkafka's linger.ms is 5 ms too)
_READ_CHUNK = 512  # rows per outbox read of a backlog (the appenders wait for the lock meanwhile)
_YIELD_EVERY = 16  # rows between GIL hand-overs (about 0.1 ms of Python work)
_PASSES_BEFORE_NEW_PRODUCER = 3
REJECTED_CODES = frozenset({KafkaError.MSG_SIZE_TOO_LARGE, KafkaError.INVALID_RECORD})
"""Errors about the message itself, not the broker or the connection: producing it again can only
fail again, and retrying it forever would hold up every row behind it."""

ProducerFactory = Callable[[dict[str, Any]], Producer]


class RelaySource(Protocol):
    """What the relay needs of an outbox: `SqliteOutbox`, or `OutboxProxy` in a relay process."""

    def pending(self, after_pos: int, limit: int) -> list[OutboxRow]: ...
    def mark_delivered(self, marks: Sequence[DeliveryMark]) -> None: ...
    def pending_count(self, upto_pos: int | None = None) -> int: ...
    def all_settled(self, upto_pos: int | None = None) -> bool: ...
    def last_pos(self) -> int: ...
    def wait_for_append(self, timeout: float) -> bool: ...
    def prune_expired(
        self, retention_s: float, head_retention_s: float | None, *, budget_s: float
    ) -> int: ...
    @property
    def commits(self) -> int:
        """Append transactions so far (a relay sharing the GIL yields only while appenders append)."""
        ...


def producer_config(kafka_config: Mapping[str, Any]) -> dict[str, Any]:
    """The producer config: the caller's, with the delivery guarantees forced on."""
    config: dict[str, Any] = {
        "linger.ms": 5,
        # librdkafka's default (5 min) would hold a wedged message that long; the outbox keeps
        # every undelivered row anyway, so give up sooner and let the relay produce it again.
        "message.timeout.ms": 30_000,
        "logger": logging.getLogger("bridge.capture.librdkafka"),
    }
    config.update(kafka_config)
    # Not negotiable: without them a delivery report does not mean "on every in-sync replica,
    # once, in order", and marking rows delivered on it would be a lie.
    config["enable.idempotence"] = True
    config["acks"] = "all"
    return config


class KafkaRelay:
    """Drains one `SqliteOutbox` into one topic. Start it, `flush` it, `close` it."""

    def __init__(
        self,
        outbox: RelaySource,
        *,
        topic: str,
        kafka_config: Mapping[str, Any],
        batch_size: int = 500,
        max_in_flight: int = 10_000,
        idle_wait_s: float = 0.05,
        backoff_initial_s: float = 0.1,
        backoff_max_s: float = 5.0,
        retention_s: float = 3_600.0,
        head_retention_s: float | None = 7 * 86_400.0,
        maintenance_interval_s: float = 30.0,
        producer_factory: ProducerFactory = Producer,
        yield_gil: bool = True,
    ) -> None:
        self.topic = topic
        self._outbox = outbox
        self._config = producer_config(kafka_config)
        self._config["error_cb"] = self._on_error
        self._batch_size = batch_size
        self._max_in_flight = max_in_flight
        self._idle_wait_s = idle_wait_s
        self._backoff = (backoff_initial_s, backoff_max_s)
        self._retention = (retention_s, head_retention_s)
        self._maintenance_interval_s = maintenance_interval_s
        self._factory = producer_factory
        self._yield_every = _YIELD_EVERY if yield_gil else 0
        self._commits_seen = 0
        self._producer: Producer | None = None
        self._generation = 0  # reports from a discarded producer must not count as failures of this one
        self._cursor = 0  # highest pos handed to the current producer in this pass
        self._in_flight: set[int] = set()
        self._failed: set[int] = set()
        self._marks: list[DeliveryMark] = []
        self._fatal: KafkaError | None = None
        self._delay_s = 0.0
        self._failed_passes = 0  # passes over the outbox that ended in failures and no delivery
        self._next_maintenance = 0.0
        self._delivered = self._failures = self._restarts = self._rejected = 0
        self._errors = ErrorReport(_log)
        self._progress = threading.Condition()
        self._stopping = threading.Event()
        self._closed_flushed = False
        self._thread: threading.Thread | None = None

    # -- control ----------------------------------------------------------------------------------

    def start(self) -> KafkaRelay:
        """Start the relay thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"capture-relay-{self.topic}", daemon=True)
            self._thread.start()
        return self

    def flush(self, timeout: float) -> bool:
        """Wait until every event appended before this call has a delivery report (or was rejected for
        good: `metrics().rejected`); False on timeout."""
        if self._thread is None or not self._thread.is_alive():
            raise RuntimeError("the relay is not running; call start() first")
        target = self._outbox.last_pos()
        deadline = time.monotonic() + timeout
        while not self._outbox.all_settled(target):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            with self._progress:
                self._progress.wait(min(remaining, 0.05))
        return True

    def close(self, timeout: float = 10.0) -> bool:
        """Flush for up to `timeout`, then stop; True when every event was delivered or rejected.

        What is still undelivered stays in the outbox for the next start. Idempotent.
        """
        if self._stopping.is_set():
            return self._closed_flushed
        running = self._thread is not None and self._thread.is_alive()
        self._closed_flushed = self.flush(timeout) if running else self._outbox.all_settled()
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        return self._closed_flushed

    def abandon(self) -> None:
        """Stop now, without flushing (the outbox is gone); undelivered rows stay in it."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()

    def metrics(self, *, pending: int | None = None) -> RelayMetrics:
        """Current counters (pending is read from the outbox unless given)."""
        error = self._errors.last
        return RelayMetrics(
            pending=self._outbox.pending_count() if pending is None else pending,
            in_flight=len(self._in_flight),
            delivered=self._delivered,
            failed=self._failures,
            rejected=self._rejected,
            producer_restarts=self._restarts,
            last_error=error[0] if error else None,
            last_error_at=error[1] if error else None,
            running=self._thread is not None and self._thread.is_alive(),
        )

    def __enter__(self) -> KafkaRelay:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- the relay thread -------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._cycle()
            except Exception as exc:  # the thread must outlive any one failure
                self._errors.record(f"relay cycle failed: {exc!r}")
                self._discard_producer()
                self._stopping.wait(self._next_delay())
        self._discard_producer()

    def _cycle(self) -> None:
        started = time.monotonic()
        if self._producer is None:
            self._producer = self._factory(dict(self._config))
            self._generation += 1
            self._cursor = 0  # a fresh producer starts from the oldest undelivered row
        produced = 0 if (self._failed or self._fatal) else self._produce_some(self._producer)
        waiting = bool(self._in_flight) and not produced
        # Serving reports until the cycle is `_CYCLE_S` old lets rows and reports gather, so each
        # cycle's reads (an RPC, for a relay process), Python work and delivery-mark transaction
        # cover many events; a backlog is drained without a pause. Without it the relay came back
        # for every few rows, thousands of times a second, each time taking the agent's lock or GIL.
        deadline = 0.0 if produced >= self._batch_size else started + (0.01 if waiting else _CYCLE_S)
        try:
            self._producer.poll(0)
            while (left := deadline - time.monotonic()) > 0 and not self._stopping.is_set():
                self._producer.poll(left)
        except KafkaException as exc:  # poll raises the producer's fatal error as well as reporting it
            error = exc.args[0]
            if not (isinstance(error, KafkaError) and error.fatal()):
                raise
            self._fatal = error
        self._write_marks(force=not self._in_flight)
        if self._fatal is not None:
            self._errors.record(
                f"fatal producer error, starting a new producer: {self._fatal.str()}", always_log=True
            )
            self._fatal = None
            self._restarts += 1
            self._discard_producer()
            self._stopping.wait(self._next_delay())
        elif self._failed and not self._in_flight:
            # Every report of this pass is in: go back to the oldest failed row and produce every
            # row still undelivered from there, in order, after a pause that grows while failing.
            self._cursor = min(self._failed) - 1
            self._failed.clear()
            self._failed_passes += 1
            if self._failed_passes >= _PASSES_BEFORE_NEW_PRODUCER:
                # An idempotent producer can wedge without a fatal error (seen with Tansu: after a
                # restart it answers UNKNOWN_PRODUCER_ID, librdkafka tries an epoch bump, and every
                # message times out from then on). A new producer gets a new producer id.
                self._errors.record(
                    f"no delivery in {self._failed_passes} passes; starting a new producer", always_log=True
                )
                self._restarts += 1
                self._discard_producer()
            self._stopping.wait(self._next_delay())
        elif not produced and not self._in_flight:
            self._maintain()
            self._outbox.wait_for_append(self._idle_wait_s)

    def _produce_some(self, producer: Producer) -> int:
        room = min(self._batch_size, self._max_in_flight - len(self._in_flight))
        if room <= 0:
            return 0
        produced = 0
        while produced < room:
            chunk = min(_READ_CHUNK, room - produced)
            rows = self._outbox.pending(self._cursor, chunk)
            taken = self._produce_rows(producer, rows)
            produced += taken
            if taken < chunk:
                # Caught up (or a full queue, or a refusal): rows appended meanwhile wait for the
                # next cycle, instead of the relay chasing the agent a row or two at a time.
                break
        return produced

    def _produce_rows(self, producer: Producer, rows: list[OutboxRow]) -> int:
        produced = 0
        for row in rows:
            report = functools.partial(self._on_delivery, row.pos, self._generation)
            try:
                record = row.record()
            except (ValueError, KeyError, TypeError) as exc:  # JSON or UTF-8 errors are ValueErrors
                self._reject(row.pos, f"the outbox row is unreadable ({type(exc).__name__}: {exc})")
                self._cursor = row.pos
                continue
            headers: list[tuple[str, str | bytes | None]] = [*record.headers]
            try:
                producer.produce(self.topic, record.value, record.key, on_delivery=report, headers=headers)
            except BufferError:
                break  # librdkafka's queue is full: serve reports, come back for this row
            except KafkaException as exc:
                error = exc.args[0]
                if isinstance(error, KafkaError) and error.fatal():
                    self._fatal = error
                    break
                if isinstance(error, KafkaError) and error.code() in REJECTED_CODES:
                    self._reject(
                        row.pos, f"the producer refuses it: {error.str()} ({len(record.value)} bytes)"
                    )
                    self._cursor = row.pos
                    continue
                self._errors.record(f"produce of outbox row {row.pos} refused: {exc}")
                self._failures += 1
                self._failed.add(row.pos)
                break
            self._in_flight.add(row.pos)
            self._cursor = row.pos
            produced += 1
            if self._yield_every and produced % self._yield_every == 0:
                commits = self._outbox.commits
                if commits != self._commits_seen:
                    # An agent is recording: hand it the GIL now rather than at the 5 ms switch
                    # interval, so the relay's Python work stays out of the agent's p99.
                    self._commits_seen = commits
                    time.sleep(YIELD_S)
        return produced

    def _on_delivery(self, pos: int, generation: int, err: KafkaError | None, msg: Message) -> None:
        if generation == self._generation:
            self._in_flight.discard(pos)
        if err is None:
            partition, offset = msg.partition(), msg.offset()
            # A success is a fact whatever producer reported it; a stale failure is not news.
            self._marks.append(DeliveryMark(pos, partition or 0, offset or 0, time.time()))
            self._delivered += 1
            self._delay_s = 0.0
            self._failed_passes = 0
        elif err.code() in REJECTED_CODES:
            self._reject(pos, f"the broker refuses it: {err.str()}")
        elif generation == self._generation:
            self._failures += 1
            self._failed.add(pos)
            self._errors.record(f"delivery of outbox row {pos} failed: {err.str()}")
            if err.fatal():
                self._fatal = err

    def _reject(self, pos: int, reason: str) -> None:
        self._marks.append(DeliveryMark.rejection(pos, reason, time.time()))
        self._rejected += 1
        self._errors.record(
            f"outbox row {pos} rejected, kept in the outbox, not shipped: {reason}", always_log=True
        )

    def _on_error(self, err: KafkaError) -> None:
        # Broker down, connection refused: librdkafka keeps retrying; only fatal errors need us.
        self._errors.record(f"kafka: {err.str()}")
        if err.fatal():
            self._fatal = err

    def _write_marks(self, *, force: bool = True) -> None:
        if not self._marks:
            return
        if (
            not force
            and len(self._marks) < _MARK_BATCH
            and time.time() - self._marks[0].delivered_at < _MARK_AGE_S
        ):
            return
        marks, self._marks = self._marks, []
        self._outbox.mark_delivered(marks)  # in short transactions (SqliteOutbox.mark_delivered)
        with self._progress:
            self._progress.notify_all()

    def _discard_producer(self) -> None:
        producer, self._producer = self._producer, None
        if producer is None:
            return
        try:
            producer.purge(in_queue=True, in_flight=True, blocking=False)
            producer.poll(0)  # serve what reports are ready: successes still get marked
            self._write_marks()
        except Exception as exc:  # a broken producer may refuse even this; the outbox still has the rows
            _log.debug("discarding producer: %r", exc)
        self._in_flight.clear()
        self._failed.clear()

    def _maintain(self) -> None:
        now = time.time()
        if now >= self._next_maintenance:
            self._next_maintenance = now + self._maintenance_interval_s
            self._outbox.prune_expired(*self._retention, budget_s=0.05)

    def _next_delay(self) -> float:
        initial, ceiling = self._backoff
        self._delay_s = min(ceiling, max(initial, self._delay_s * 2))
        return self._delay_s
