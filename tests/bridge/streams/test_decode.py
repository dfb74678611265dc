"""`decode_message`: a valid event passes as received; every bad message gets a precise reason."""

from __future__ import annotations

import pytest

from bridge.streams.decode import Decoded, Rejection, decode_message
from schemas import to_kafka
from tests.bridge.store.builders import EpisodeBuilder
from tests.bridge.streams.messages import hostile


def _valid():  # type: ignore[no-untyped-def]
    ep = EpisodeBuilder()
    ep.started()
    return ep.responded(0)


def test_a_valid_event_decodes_with_its_structured_form_as_received() -> None:
    event = _valid()
    record = to_kafka(event)
    out = decode_message(record.value, record.headers)
    assert isinstance(out, Decoded)
    assert out.event == event and out.structured == event.model_dump(mode="json")


def test_headers_given_as_a_mapping_decode_too() -> None:
    record = to_kafka(_valid())
    assert isinstance(decode_message(record.value, dict(record.headers)), Decoded)


@pytest.mark.parametrize("code", list(hostile(_valid())))
def test_each_kind_of_bad_message_is_rejected_with_its_reason_code(code: str) -> None:
    value, headers = hostile(_valid())[code]
    out = decode_message(value, headers)
    assert isinstance(out, Rejection)
    assert out.reason_code == code, out.reason
    assert out.reason


def test_control_characters_in_an_id_are_refused_before_they_reach_a_store() -> None:
    record = to_kafka(_valid())
    headers = [(k, b"id\x00with-nul" if k == "ce_id" else v) for k, v in record.headers]
    out = decode_message(record.value, headers)
    assert isinstance(out, Rejection) and out.reason_code == "invalid" and "id" in out.reason


def test_a_lone_surrogate_is_hashable_and_an_altered_value_is_a_hash_mismatch() -> None:
    record = to_kafka(_valid())
    value = record.value.replace(b'"thinking"', b'"\\ud800"')
    out = decode_message(value, record.headers)
    assert isinstance(out, Rejection) and out.reason_code == "hash_mismatch"
