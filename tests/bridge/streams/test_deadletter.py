"""The dead-letter format keeps the original message and says why, where from and when."""

from __future__ import annotations

from datetime import UTC, datetime

from bridge.streams.deadletter import (
    MAX_KEPT_BYTES,
    DeadLetter,
    RawMessage,
    as_mapping,
    rejected_from_headers,
)

WHEN = datetime(2026, 3, 1, tzinfo=UTC)


def test_a_dead_letter_keeps_the_original_bytes_headers_and_position() -> None:
    original = RawMessage(
        "loopline.events.v1",
        2,
        41,
        b"ep-1",
        b"{bad",
        [("ce_type", b"loopline.x.v1"), ("dlq_reason", b"forged")],
        1700,
    )
    letter = DeadLetter.build(original, "not_json", "not valid JSON: ...", stage="projector", failed_at=WHEN)
    assert (letter.key, letter.value) == (b"ep-1", b"{bad")
    assert ("ce_type", b"loopline.x.v1") in letter.headers
    assert as_mapping(letter) == {
        "reason_code": "not_json", "reason": "not valid JSON: ...", "topic": "loopline.events.v1",
        "partition": "2", "offset": "41", "timestamp_ms": "1700", "stage": "projector",
        "failed_at": "2026-03-01T00:00:00+00:00",
    }  # fmt: skip


def test_an_oversized_original_is_cut_and_its_size_recorded() -> None:
    original = RawMessage("t", 0, 0, None, b"x" * (MAX_KEPT_BYTES * 3), [])
    letter = DeadLetter.build(original, "oversized", "too big", stage="projector", failed_at=WHEN)
    assert letter.value is not None and len(letter.value) == MAX_KEPT_BYTES
    assert letter.header("dlq_value_truncated") == str(MAX_KEPT_BYTES * 3)


def test_the_detector_reads_a_dead_letter_back_from_its_headers() -> None:
    original = RawMessage(
        "t", 0, 5, None, b"{}", [("ce_tenant", b"acme"), ("ce_episodeid", b"ep-1"), ("ce_id", b"e1")]
    )
    letter = DeadLetter.build(original, "hash_mismatch", "hash differs", stage="projector", failed_at=WHEN)
    rejected = rejected_from_headers(letter.headers)
    assert rejected is not None
    assert (rejected.reason_code, rejected.tenant, rejected.episode_id, rejected.event_id, rejected.topic) == (
        "hash_mismatch", "acme", "ep-1", "e1", "t",
    )  # fmt: skip
    assert rejected_from_headers([("ce_id", b"e1")]) is None
