"""Every event type survives JSON and Kafka binary mode unchanged, and bad bytes fail clearly."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from schemas import (
    DEFAULT_REGISTRY,
    EpisodeChain,
    Event,
    EventDecodeError,
    from_json,
    from_kafka,
    to_json,
    to_kafka,
)
from schemas.chain import hash_event
from schemas.codec import MAX_EVENT_BYTES, structured_from_kafka
from schemas.events import Escalated
from tests.schemas.strategies import events

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("event_type", DEFAULT_REGISTRY.types())
def test_every_event_type_round_trips_through_json(event_type: str) -> None:
    @SETTINGS
    @given(event=events(event_type))
    def check(event: Event) -> None:
        decoded = from_json(to_json(event))
        assert decoded == event
        assert hash_event(decoded) == event.hash

    check()


@pytest.mark.parametrize("event_type", DEFAULT_REGISTRY.types())
def test_every_event_type_round_trips_through_kafka_binary_mode(event_type: str) -> None:
    @SETTINGS
    @given(event=events(event_type))
    def check(event: Event) -> None:
        record = to_kafka(event)
        assert record.key == event.episodeid.encode()
        headers = dict(record.headers)
        assert headers["ce_type"] == event_type.encode()
        assert headers["ce_id"] == event.id.encode()
        decoded = from_kafka(record.value, record.headers)
        assert decoded == event
        assert hash_event(decoded) == event.hash

    check()


def _one_event() -> Event:
    chain = EpisodeChain("ep-1", tenant="acme", source="loopline://test")
    return chain.append(Escalated(reason="write-off above limit", trigger="rule"))


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"\xff\xfe", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"type": "loopline.nope.v1", "data": {}}', "unknown event type"),
        (b'{"data": {}}', "missing or non-string 'type'"),
    ],
)
def test_malformed_json_is_a_decode_error_with_a_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(EventDecodeError, match=reason):
        from_json(raw)


def test_wrong_field_types_name_the_field() -> None:
    doc = json.loads(to_json(_one_event()))
    doc["seq"] = "seven"
    doc["data"]["trigger"] = 42
    with pytest.raises(EventDecodeError) as info:
        from_json(json.dumps(doc))
    assert "seq" in info.value.reason
    assert "data.trigger" in info.value.reason


def test_oversized_event_is_refused_before_parsing() -> None:
    with pytest.raises(EventDecodeError, match="exceeds"):
        from_json(b"{" + b" " * MAX_EVENT_BYTES + b"}")


def test_kafka_message_without_cloudevents_headers_is_refused() -> None:
    record = to_kafka(_one_event())
    with pytest.raises(EventDecodeError, match="ce_specversion"):
        from_kafka(record.value, [h for h in record.headers if h[0] != "ce_specversion"])
    with pytest.raises(EventDecodeError, match="no value"):
        from_kafka(None, record.headers)


def test_non_integer_seq_header_is_refused() -> None:
    record = to_kafka(_one_event())
    headers = [(k, b"x1" if k == "ce_seq" else v) for k, v in record.headers]
    with pytest.raises(EventDecodeError, match="ce_seq"):
        structured_from_kafka(record.value, headers)


def test_naive_time_is_refused() -> None:
    doc = json.loads(to_json(_one_event()))
    doc["time"] = "2026-01-01T00:00:00"
    with pytest.raises(EventDecodeError, match="timezone"):
        from_json(json.dumps(doc))
