"""The relay's bookkeeping rules, driven by a scripted producer so each failure happens on cue.

The real broker, its outages and restarts are exercised in the integration tests; here every
branch (failed report, fatal error, full queue) is made to happen deterministically.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaError

from bridge.capture import KafkaRelay, SqliteOutbox
from schemas import EpisodeChain
from schemas.events import Escalated


@dataclass
class FakeMessage:
    _partition: int
    _offset: int

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset


@dataclass
class ScriptedProducer:
    """Records produce calls; `poll` answers each with the outcome `decide(pos_index)` names."""

    decide: Callable[[int], KafkaError | None]
    config: dict[str, Any]
    produced: list[bytes] = field(default_factory=list)
    queue: list[tuple[Any, bytes]] = field(default_factory=list)
    full_after: int | None = None
    purged: bool = False

    def produce(self, topic: str, value: bytes, key: bytes, *, on_delivery: Any, headers: Any) -> None:
        if self.full_after is not None and len(self.queue) >= self.full_after:
            raise BufferError("queue full")
        self.produced.append(value)
        self.queue.append((on_delivery, value))

    def poll(self, timeout: float = 0) -> int:
        served, self.queue = self.queue, []
        for callback, value in served:
            index = len(self.produced) - len(served) + served.index((callback, value))
            err = self.decide(index)
            callback(err, FakeMessage(0, index))
        if self.full_after is not None:
            self.full_after = None  # the queue drained: room again
        return len(served)

    def purge(self, **_: Any) -> None:
        self.purged = True
        self.queue.clear()


def fill(outbox: SqliteOutbox, n: int) -> list[str]:
    chain = EpisodeChain("ep-1", tenant="clinic-a", source="s")
    events = [chain.append(Escalated(reason=f"r{i}", trigger="rule")) for i in range(n)]
    outbox.append_many(events)
    return [e.id for e in events]


def make_relay(
    outbox: SqliteOutbox,
    producers: list[ScriptedProducer],
    script: Callable[..., ScriptedProducer],
    kafka_config: dict[str, Any] | None = None,
    **options: Any,
) -> KafkaRelay:
    def factory(config: dict[str, Any]) -> Any:
        producer = script(config)
        producers.append(producer)
        return producer

    return KafkaRelay(
        outbox, topic="t", kafka_config=kafka_config or {"bootstrap.servers": "x:1"}, producer_factory=factory,
        backoff_initial_s=0.01, backoff_max_s=0.02, idle_wait_s=0.01, **options,
    )  # fmt: skip


def drain_with_one_failure(
    outbox: SqliteOutbox, failing: int, error: KafkaError
) -> tuple[KafkaRelay, ScriptedProducer]:
    """Drain the outbox through one scripted producer whose report for message `failing` is
    `error` (every other report, and any resend, succeeds); the relay is closed when it returns."""
    producers: list[ScriptedProducer] = []
    relay = make_relay(
        outbox, producers, lambda c: ScriptedProducer(lambda i: error if i == failing else None, c)
    )
    with relay:
        assert relay.flush(5)
    [producer] = producers
    return relay, producer


def test_a_failed_delivery_is_produced_again_and_marked_only_when_it_succeeds(outbox: SqliteOutbox) -> None:
    fill(outbox, 5)
    relay, producer = drain_with_one_failure(outbox, 2, KafkaError(KafkaError._MSG_TIMED_OUT))
    values = producer.produced
    assert len(values) == 6 and values[5] == values[2]  # only the failed row went out twice
    assert all(row.delivered_at is not None for row in outbox.rows())
    metrics = relay.metrics()
    assert (metrics.delivered, metrics.failed, metrics.pending) == (5, 1, 0)
    assert metrics.last_error is not None and "timed out" in metrics.last_error


def test_a_row_the_broker_refuses_as_too_large_is_rejected_not_produced_again(outbox: SqliteOutbox) -> None:
    # the producer's own size check passed, but the broker's limit is lower: the report says so
    ids = fill(outbox, 4)
    relay, producer = drain_with_one_failure(outbox, 1, KafkaError(KafkaError.MSG_SIZE_TOO_LARGE))
    assert len(producer.produced) == 4  # nothing went out twice
    [rejected] = outbox.rejected_rows()
    assert rejected.event_id == ids[1] and "broker refuses" in (rejected.rejected or "")
    assert (rejected.partition, rejected.offset) == (None, None)
    metrics = relay.metrics()
    assert (metrics.delivered, metrics.rejected, metrics.failed, metrics.pending) == (3, 1, 0, 0)


def test_the_producer_config_always_asks_for_idempotence_and_all_acks(outbox: SqliteOutbox) -> None:
    fill(outbox, 1)
    producers: list[ScriptedProducer] = []
    weak = {"enable.idempotence": False, "acks": 1, "bootstrap.servers": "x:1"}
    relay = make_relay(outbox, producers, lambda c: ScriptedProducer(lambda i: None, c), weak)
    with relay:
        assert relay.flush(5)
    assert producers[0].config["enable.idempotence"] is True and producers[0].config["acks"] == "all"


def test_a_fatal_error_replaces_the_producer_which_resends_what_was_undelivered(outbox: SqliteOutbox) -> None:
    fill(outbox, 4)
    fatal = KafkaError(KafkaError.UNKNOWN_PRODUCER_ID, fatal=True)
    producers: list[ScriptedProducer] = []

    def script(config: dict[str, Any]) -> ScriptedProducer:
        first = not producers
        return ScriptedProducer(lambda i: fatal if first and i >= 2 else None, config)

    relay = make_relay(outbox, producers, script)
    with relay:
        assert relay.flush(5)
    assert len(producers) == 2 and producers[0].purged
    assert len(producers[1].produced) == 2  # rows 0 and 1 had reports; only 2 and 3 are resent
    assert relay.metrics().producer_restarts == 1


def test_a_producer_that_only_ever_times_out_is_replaced(outbox: SqliteOutbox) -> None:
    fill(outbox, 3)
    timeout = KafkaError(KafkaError._MSG_TIMED_OUT)
    producers: list[ScriptedProducer] = []

    def script(config: dict[str, Any]) -> ScriptedProducer:
        wedged = not producers  # no fatal error, yet nothing it sends ever arrives
        return ScriptedProducer(lambda i: timeout if wedged else None, config)

    with make_relay(outbox, producers, script) as relay:
        assert relay.flush(5)
    assert len(producers) == 2 and len(producers[0].produced) == 9  # three passes of three rows
    assert relay.metrics().producer_restarts == 1


def test_a_full_local_queue_holds_rows_back_until_there_is_room(outbox: SqliteOutbox) -> None:
    ids = fill(outbox, 6)
    producers: list[ScriptedProducer] = []

    def script(config: dict[str, Any]) -> ScriptedProducer:
        producer = ScriptedProducer(lambda i: None, config)
        producer.full_after = 2
        return producer

    with make_relay(outbox, producers, script) as relay:
        assert relay.flush(5)
    assert len(producers[0].produced) == len(ids)  # each row exactly once, none skipped


def test_appends_do_not_wait_for_an_unreachable_broker(outbox: SqliteOutbox) -> None:
    relay = KafkaRelay(
        outbox, topic="t", kafka_config={"bootstrap.servers": "127.0.0.1:9", "broker.address.family": "v4"}
    ).start()
    try:
        chain = EpisodeChain("ep-1", tenant="clinic-a", source="s")
        started = time.perf_counter()
        for i in range(200):
            outbox.append(chain.append(Escalated(reason=f"r{i}", trigger="rule")))
        elapsed = time.perf_counter() - started
        assert elapsed < 2.0  # 200 appends; the relay's failing connection attempts cost them nothing
        assert not relay.flush(0.3)
        assert relay.metrics().pending == 200
    finally:
        assert relay.close(timeout=0.1) is False
    assert outbox.pending_count() == 200  # undelivered rows stay for the next start


def test_closing_a_relay_that_never_started_reports_whether_anything_is_pending(outbox: SqliteOutbox) -> None:
    relay = KafkaRelay(outbox, topic="t", kafka_config={"bootstrap.servers": "127.0.0.1:9"})
    assert relay.close(0.1) is True
    fill(outbox, 1)
    assert (
        KafkaRelay(outbox, topic="t", kafka_config={"bootstrap.servers": "127.0.0.1:9"}).close(0.1) is False
    )


def test_the_relay_prunes_delivered_rows_but_keeps_the_episodes_last_one(outbox: SqliteOutbox) -> None:
    fill(outbox, 5)
    producers: list[ScriptedProducer] = []
    script = lambda c: ScriptedProducer(lambda i: None, c)  # noqa: E731
    with make_relay(outbox, producers, script, retention_s=0.0, maintenance_interval_s=0.0) as relay:
        assert relay.flush(5)
        deadline = time.monotonic() + 5
        while len(outbox.rows()) > 1 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert [row.seq for row in outbox.rows()] == [4]
