"""A broker that dies and comes back: capture goes on, and every event reaches the topic afterwards.

The private broker stores in memory, so what it held dies with it; the test therefore reads back
what the first incarnation acknowledged before killing it (a durable broker would keep it), and
checks the rest on the second incarnation. What is under test is the relay: events captured while
the broker is gone, messages timing out in librdkafka, and the idempotent producer turning fatal
when the new broker does not know its producer id.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import pytest

from bridge.capture import KafkaRelay, SqliteOutbox
from bridge.recording import EpisodeRecorder
from schemas import Event, SideEffect, ToolOutcome, ToolResult, WorkItem
from schemas.events import PolicyRef
from tests.bridge.capture.brokers import PrivateBroker, create_topic, read_topic
from tests.bridge.phi.phi_models import LookupArgs, NoPhi
from tests.bridge.recording.episodes import lookup_call

pytestmark = pytest.mark.integration

MakeRecorder = Callable[..., EpisodeRecorder]


def short_episodes(make_recorder: MakeRecorder, outbox: SqliteOutbox, n: int) -> list[Event]:
    """`n` four-event episodes: started, tool.called, tool.returned, ended."""
    events: list[Event] = []
    item = WorkItem(domain="rcm", kind="denial", item_id="CLM-1", instructions="Appeal it.")
    result = ToolResult(
        call_id="call-0", name="lookup_claim", outcome=ToolOutcome.OK, result={"claim_id": "C", "status": "x"}
    )
    for _ in range(n):
        recorder = make_recorder(uuid.uuid4().hex, outbox)
        events.append(
            recorder.started(
                item, payload_model=None, policy=PolicyRef(model="toy"), tools=["lookup_claim"],
                tools_hash="t", system_prompt_hash="p", max_steps=5, max_seconds=5.0,
            )
        )  # fmt: skip
        events.append(recorder.tool_called(lookup_call(0), SideEffect.READ, LookupArgs))
        events.append(recorder.tool_returned(result, NoPhi))
        events.append(recorder.ended("completed", steps=1, tool_calls=1, duration_ms=1.0))
    return events


def test_every_event_reaches_the_topic_across_a_broker_outage_and_restart(
    private_broker: PrivateBroker, make_recorder: MakeRecorder, outbox: SqliteOutbox
) -> None:
    config = private_broker.config()
    topic = f"capture-outage-{uuid.uuid4().hex[:8]}"
    create_topic(config, topic)
    relay_config = {**config, "message.timeout.ms": 1500, "reconnect.backoff.max.ms": 300}
    relay = KafkaRelay(outbox, topic=topic, kafka_config=relay_config, backoff_max_s=0.3).start()
    try:
        up = short_episodes(make_recorder, outbox, 300)
        assert relay.flush(30)
        seen_before = {m.event_id for m in read_topic(config, topic, {e.id for e in up})}
        assert {e.id for e in up} <= seen_before

        private_broker.kill()
        started = time.perf_counter()
        down = short_episodes(make_recorder, outbox, 400)
        capture_s = time.perf_counter() - started
        time.sleep(2.0)  # past message.timeout.ms: librdkafka gives the queued messages up
        metrics = relay.metrics()
        assert metrics.pending >= len(down) and metrics.failed > 0 and metrics.last_error

        private_broker.start()
        create_topic(config, topic)
        back = short_episodes(make_recorder, outbox, 300)
        assert relay.flush(60), relay.metrics()
    finally:
        relay.close(timeout=1)
    assert capture_s < 10  # capture kept its pace with the broker gone (1,600 appends)
    seen_after = {m.event_id for m in read_topic(config, topic, {e.id for e in down + back})}
    assert {e.id for e in down + back} <= seen_after
    assert outbox.pending_count() == 0
