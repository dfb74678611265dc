"""The retry schedule: which answers are retried, how long to wait, and how Retry-After is read."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from bridge.runtime import RetryPolicy
from bridge.runtime.retry import parse_retry_after


def test_backoff_doubles_up_to_the_cap_with_jitter_in_the_upper_half() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=4.0)
    rng = random.Random(1)
    for attempt, cap in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 4.0), (9, 4.0)]:
        delays = [policy.backoff(attempt, rng) for _ in range(50)]
        assert all(cap / 2 <= d <= cap for d in delays)
        assert len(set(delays)) > 1  # jittered, so retrying clients do not stampede together


def test_backoff_is_reproducible_for_a_seeded_generator() -> None:
    policy = RetryPolicy()
    first = [policy.backoff(n, random.Random(7)) for n in range(1, 5)]
    assert first == [policy.backoff(n, random.Random(7)) for n in range(1, 5)]


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504, 599])
def test_overload_and_server_errors_are_retried(status: int) -> None:
    assert RetryPolicy().retries_status(status)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(status: int) -> None:
    assert not RetryPolicy().retries_status(status)


def test_retry_after_in_seconds() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.5 ") == 0.5


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 01 Jan 2025 11:00:00 GMT", now=now) == 0.0  # already past


@pytest.mark.parametrize("value", [None, "", "soon", "-5", "nan", "inf"])
def test_unusable_retry_after_is_ignored(value: str | None) -> None:
    assert parse_retry_after(value) is None


def test_retry_policy_rejects_nonsense_settings() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(base_delay_s=2.0, max_delay_s=1.0)
