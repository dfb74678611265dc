"""`Deduplicator`: one report per fingerprint per window, surviving restarts through `last_reported`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bridge.detect import Deduplicator


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_a_fingerprint_is_admitted_once_per_window() -> None:
    clock = Clock()
    dedup = Deduplicator(timedelta(hours=1), clock=clock)
    assert dedup.admit("fp") is True
    clock.now += timedelta(minutes=59)
    assert dedup.admit("fp") is False
    assert dedup.admit("other") is True
    clock.now += timedelta(minutes=1)
    assert dedup.admit("fp") is True


def test_a_suppressed_sighting_does_not_extend_the_window() -> None:
    clock = Clock()
    dedup = Deduplicator(timedelta(hours=1), clock=clock)
    dedup.admit("fp")
    for _ in range(5):
        clock.now += timedelta(minutes=10)
        assert dedup.admit("fp") is False
    clock.now += timedelta(minutes=10)
    assert dedup.admit("fp") is True  # 60 minutes after the report, not after the last sighting


def test_a_restarted_detector_honours_the_last_report_from_the_store() -> None:
    clock = Clock()
    restarted = Deduplicator(timedelta(hours=1), clock=clock)
    assert restarted.remembers("fp") is False
    assert restarted.admit("fp", last_reported=clock.now - timedelta(minutes=5)) is False
    assert restarted.admit("old", last_reported=clock.now - timedelta(hours=2)) is True


def test_forgetting_an_admission_lets_the_case_be_reported_again() -> None:
    dedup = Deduplicator(timedelta(hours=1), clock=Clock())
    assert dedup.admit("fp")
    dedup.forget("fp")
    assert dedup.admit("fp")


def test_memory_is_bounded_and_the_store_covers_what_was_forgotten() -> None:
    clock = Clock()
    dedup = Deduplicator(timedelta(hours=1), clock=clock, max_entries=2)
    for fp in ("a", "b", "c"):
        dedup.admit(fp)
    assert not dedup.remembers("a") and dedup.remembers("c")
    assert dedup.admit("a", last_reported=clock.now) is False


def test_a_negative_window_is_refused() -> None:
    with pytest.raises(ValueError):
        Deduplicator(timedelta(seconds=-1))
