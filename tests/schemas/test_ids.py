"""UUIDv7 ids are version 7, time-ordered and carry their timestamp."""

from __future__ import annotations

import uuid

import pytest

from schemas.ids import new_id, uuid7, uuid7_time_ms


def test_uuid7_has_version_and_variant_bits() -> None:
    u = uuid7()
    assert u.version == 7
    assert u.variant == uuid.RFC_4122


def test_uuid7_sorts_by_time_and_round_trips_its_timestamp() -> None:
    a, b = uuid7(1_700_000_000_000), uuid7(1_700_000_000_001)
    assert str(a) < str(b)
    assert uuid7_time_ms(a) == 1_700_000_000_000


def test_new_ids_are_unique() -> None:
    assert len({new_id() for _ in range(10_000)}) == 10_000


def test_out_of_range_timestamps_are_refused() -> None:
    with pytest.raises(ValueError):
        uuid7(-1)
    with pytest.raises(ValueError, match="not a UUIDv7"):
        uuid7_time_ms(uuid.uuid4())
