"""UUIDv7 ids are version 7, time-ordered and carry their timestamp."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from schemas.ids import new_id, uuid7_time_ms


def test_ids_made_a_millisecond_apart_sort_by_the_time_they_were_made() -> None:
    earlier = new_id()
    time.sleep(0.002)
    later = new_id()
    assert earlier < later
    assert uuid7_time_ms(earlier) < uuid7_time_ms(later)


def test_new_ids_are_canonical_uuid7_strings_of_now() -> None:
    before = time.time_ns() // 1_000_000
    ids = [new_id() for _ in range(2_000)]
    after = time.time_ns() // 1_000_000
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text  # canonical: lower-case hex, 8-4-4-4-12
        assert (parsed.version, parsed.variant) == (7, uuid.RFC_4122)
        assert before <= uuid7_time_ms(text) <= after
    assert len({text[19:] for text in ids}) == len(ids)  # the random bits are random


def test_new_ids_are_unique() -> None:
    assert len({new_id() for _ in range(10_000)}) == 10_000


def test_the_timestamp_of_an_id_that_is_not_a_uuid7_is_refused() -> None:
    with pytest.raises(ValueError, match="not a UUIDv7"):
        uuid7_time_ms(uuid.uuid4())


def test_a_forked_child_never_repeats_its_parents_next_ids() -> None:
    new_id()  # the parent now holds a pool of random bytes
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next ids and leave without running any test teardown
        os.write(write_end, ",".join(new_id() for _ in range(3)).encode())
        os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    with os.fdopen(read_end) as pipe:
        child = pipe.read().split(",")
    parent = [new_id() for _ in range(3)]
    assert {text[19:] for text in child}.isdisjoint(text[19:] for text in parent)
