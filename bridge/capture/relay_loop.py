"""`RelayLoop`: the relay's work, shipping an outbox to Kafka at least once, in append order.

A row is marked delivered only from a successful delivery report (`acks=all`, idempotent producer)
with the broker's partition and offset. What fails is produced again from the outbox, in order, once
every report of the pass is in; a fatal or wedged producer is replaced. A restarted relay sends
again only rows without a final word, so consumers deduplicate on (source, id) (design.md §3). A row
that can never be produced (too large, unreadable) is rejected: settled with the reason, kept for an
operator, counted and logged, so it does not hold up the rows behind it.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from bridge.audit.event_keys import EventKey
from bridge.capture.delivery import DeliveryLog
from bridge.capture.outbox_rows import DeliveryMark, OutboxRow, canonical_of

_log = logging.getLogger(__name__)
LOG_INTERVAL_S = 5.0
LINGER_S = 0.005
"""librdkafka's `linger.ms`; a busy cycle serves reports this long, so reads and marks cover many rows."""
PASSES_BEFORE_NEW_PRODUCER = 3
REJECTED_CODES = frozenset({KafkaError.MSG_SIZE_TOO_LARGE, KafkaError.INVALID_RECORD})
"""Errors about the message itself, not the broker or the connection: producing it again can only
fail again, and retrying it forever would hold up every row behind it."""

ProducerFactory = Callable[[dict[str, Any]], Producer]
Wait = Callable[[float], bool]  # waits up to the given seconds; True when the relay must stop
Report = Callable[["RelayLoop"], None]  # hands the counters on, before each write of marks


class ErrorReport:
    """The newest error, for metrics, logged at most once per `LOG_INTERVAL_S` with a count of the
    others (a broker outage fails every queued message at once)."""

    def __init__(self) -> None:
        self.last: tuple[str, float] | None = None
        self._logged_at, self._unlogged = float("-inf"), 0

    def record(self, message: str, *, always_log: bool = False) -> None:
        """Remember `message`; log it unless one was logged recently (`always_log`: turning points)."""
        now = time.time()
        self.last, self._unlogged = (message, now), self._unlogged + 1
        if always_log or now - self._logged_at >= LOG_INTERVAL_S:
            more = f" (and {self._unlogged - 1} more since the last report)" if self._unlogged > 1 else ""
            _log.warning("%s%s", message, more)
            self._logged_at, self._unlogged = now, 0


def producer_config(kafka_config: Mapping[str, Any]) -> dict[str, Any]:
    """The producer config: the caller's, with the delivery guarantees forced on."""
    # The outbox keeps every undelivered row, so librdkafka gives a message up sooner than its
    # 5-minute default. Without idempotence and acks=all a report would not mean "on every
    # in-sync replica, once, in order", and marking rows delivered on it would be a lie.
    logger = logging.getLogger("bridge.capture.librdkafka")
    config = {"linger.ms": LINGER_S * 1000, "message.timeout.ms": 30_000, "logger": logger, **kafka_config}
    return {**config, "enable.idempotence": True, "acks": "all"}


class RelayLoop:
    """The relay's work, on whichever thread or process runs it (`run`)."""

    def __init__(
        self,
        path: Path,
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
        checkpoint_interval_s: float = 1.0,
        producer_factory: ProducerFactory = Producer,
        signer: EventKey | None = None,
    ) -> None:
        self.path, self.topic, self._signer = path, topic, signer
        self._config = {**producer_config(kafka_config), "error_cb": self._on_error}
        self._batch_size, self._max_in_flight, self._idle_wait_s = batch_size, max_in_flight, idle_wait_s
        self._backoff = (backoff_initial_s, backoff_max_s)
        self._retention = (retention_s, head_retention_s)
        self._intervals = (maintenance_interval_s, checkpoint_interval_s)
        self._due = [0.0, time.monotonic() + checkpoint_interval_s]  # next prune, next checkpoint
        self._factory = producer_factory
        self._producer: Producer | None = None
        self._generation = 0  # reports from a discarded producer are not failures of this one
        self._cursor = 0  # highest pos handed to the current producer in this pass
        self.in_flight: set[int] = set()
        self._failed: set[int] = set()
        self._marks: list[DeliveryMark] = []
        self._fatal: KafkaError | None = None
        self._delay_s = 0.0
        self._failed_passes = 0  # passes over the outbox that ended in failures and no delivery
        self.delivered = self.failures = self.producer_restarts = self.rejected = 0
        self.errors = ErrorReport()
        self._report: Report = lambda _loop: None

    def run(self, wait: Wait, report: Report) -> None:
        """Relay until `wait` says stop; then discard the producer (its undelivered rows stay)."""
        self._report = report
        log = DeliveryLog(self.path)
        try:
            while not wait(0):
                try:
                    self._cycle(log, wait)
                except Exception as exc:  # the relay must outlive any one failure
                    self.errors.record(f"relay cycle failed: {exc!r}")
                    self._discard_producer(log)
                    wait(self._next_delay())
        finally:
            self._discard_producer(log)
            log.close()
            report(self)

    def _cycle(self, log: DeliveryLog, wait: Wait) -> None:
        started = time.monotonic()
        if self._producer is None:
            self._producer = self._factory(dict(self._config))
            self._generation += 1
            self._cursor = 0  # a fresh producer starts from the oldest row without a final word
        produced = 0 if (self._failed or self._fatal) else self._produce_rows(self._producer, log)
        # Reports are served until the cycle is a linger old (twice that while only waiting for
        # them), so each read and write of marks covers many rows; a full batch goes on at once.
        deadline = 0.0 if produced >= self._batch_size else started + LINGER_S * (1 if produced else 2)
        try:
            self._producer.poll(0)
            while (left := deadline - time.monotonic()) > 0 and not wait(0):
                self._producer.poll(left)
        except KafkaException as exc:  # poll raises the producer's fatal error as well as reporting it
            if not (isinstance(exc.args[0], KafkaError) and exc.args[0].fatal()):
                raise
            self._fatal = exc.args[0]
        self._write_marks(log)
        if self._fatal is not None:
            self.errors.record(
                f"fatal producer error, starting a new producer: {self._fatal.str()}", always_log=True
            )
            self._fatal = None
            self._replace_producer(log, wait)
        elif self._failed and not self.in_flight:
            # Every report of this pass is in: go back to the oldest failed row and produce every
            # row still undelivered from there, in order, after a pause that grows while failing.
            self._cursor = min(self._failed) - 1
            self._failed.clear()
            self._failed_passes += 1
            if self._failed_passes >= PASSES_BEFORE_NEW_PRODUCER:
                # An idempotent producer can wedge without a fatal error (after a broker restart it
                # may retry an epoch bump forever, every message timing out); a new one gets a new id.
                self.errors.record(
                    f"no delivery in {self._failed_passes} passes; starting a new producer", always_log=True
                )
                self._replace_producer(log, wait)
            else:
                wait(self._next_delay())
        elif not produced and not self.in_flight:
            wait(self._idle_wait_s)
        self._maintain(log)

    def _produce_rows(self, producer: Producer, log: DeliveryLog) -> int:
        room = min(self._batch_size, self._max_in_flight - len(self.in_flight))
        produced = 0
        for row in log.pending(self._cursor, room) if room > 0 else []:
            if not self._produce(producer, row):
                break
            self._cursor = row.pos
            produced += row.pos in self.in_flight
        return produced

    def _produce(self, producer: Producer, row: OutboxRow) -> bool:
        """Hand `row` to the producer (or reject it); False when the relay must stop for now."""
        try:
            record = row.record()
            # The event's MAC, so the stream worker knows this bridge wrote it (bridge.audit.event_keys).
            mac = [] if self._signer is None else self._signer.headers(canonical_of(row.doc))
        except (ValueError, KeyError, TypeError) as exc:  # JSON or UTF-8 errors are ValueErrors
            self._reject(row.pos, f"the outbox row is unreadable ({type(exc).__name__}: {exc})")
            return True
        report = functools.partial(self._on_delivery, row.pos, self._generation)
        headers: list[tuple[str, str | bytes | None]] = [*record.headers, *mac]
        try:
            producer.produce(self.topic, record.value, record.key, on_delivery=report, headers=headers)
        except BufferError:
            return False  # librdkafka's queue is full: serve reports, come back for this row
        except KafkaException as exc:
            error = exc.args[0]
            if isinstance(error, KafkaError) and error.fatal():
                self._fatal = error
                return False
            if isinstance(error, KafkaError) and error.code() in REJECTED_CODES:
                self._reject(row.pos, f"the producer refuses it: {error.str()} ({len(record.value)} bytes)")
                return True
            self.errors.record(f"produce of outbox row {row.pos} refused: {exc}")
            self.failures += 1
            self._failed.add(row.pos)
            return False
        self.in_flight.add(row.pos)
        return True

    def _on_delivery(self, pos: int, generation: int, err: KafkaError | None, msg: Message) -> None:
        if generation == self._generation:
            self.in_flight.discard(pos)
        if err is None:  # a success is a fact whatever producer reported it
            self._marks.append(DeliveryMark(pos, msg.partition() or 0, msg.offset() or 0, time.time()))
            self.delivered += 1
            self._delay_s, self._failed_passes = 0.0, 0
        elif err.code() in REJECTED_CODES:
            self._reject(pos, f"the broker refuses it: {err.str()}")
        elif generation == self._generation:  # a stale failure is not news
            self.failures += 1
            self._failed.add(pos)
            self.errors.record(f"delivery of outbox row {pos} failed: {err.str()}")
            if err.fatal():
                self._fatal = err

    def _reject(self, pos: int, reason: str) -> None:
        self._marks.append(DeliveryMark.rejection(pos, reason, time.time()))
        self.rejected += 1
        self.errors.record(
            f"outbox row {pos} rejected, kept in the outbox, not shipped: {reason}", always_log=True
        )

    def _on_error(self, err: KafkaError) -> None:
        # Broker down, connection refused: librdkafka keeps retrying; only fatal errors need us.
        self.errors.record(f"kafka: {err.str()}")
        if err.fatal():
            self._fatal = err

    def _write_marks(self, log: DeliveryLog) -> None:
        if self._marks:
            marks, self._marks = self._marks, []
            self._report(self)
            log.mark(marks)

    def _replace_producer(self, log: DeliveryLog, wait: Wait) -> None:
        self.producer_restarts += 1
        self._discard_producer(log)
        wait(self._next_delay())

    def _discard_producer(self, log: DeliveryLog) -> None:
        producer, self._producer = self._producer, None
        if producer is not None:
            try:
                producer.purge(in_queue=True, in_flight=True, blocking=False)
                producer.poll(0)  # serve the reports that are ready: successes still get marked
                self._write_marks(log)
            except Exception as exc:  # a broken producer may refuse even this; the outbox has the rows
                _log.debug("discarding producer: %r", exc)
        self.in_flight.clear()
        self._failed.clear()

    def _maintain(self, log: DeliveryLog) -> None:
        now = time.monotonic()
        if now >= self._due[0]:
            self._due[0] = now + self._intervals[0]
            retention_s, head_retention_s = self._retention
            now_s = time.time()
            log.prune(
                now_s - retention_s,
                heads_before=None if head_retention_s is None else now_s - head_retention_s,
            )
        if now >= self._due[1]:
            self._due[1] = now + self._intervals[1]
            log.checkpoint()

    def _next_delay(self) -> float:
        initial, ceiling = self._backoff
        self._delay_s = min(ceiling, max(initial, self._delay_s * 2))
        return self._delay_s
