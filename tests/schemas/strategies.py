"""Hypothesis strategies for schema tests: valid events of every registered type."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from schemas import DEFAULT_REGISTRY, EpisodeChain, Event, EventData
from schemas.chain import SealedEvent
from tests.schemas.modelgen import for_model

_data_strategies: dict[str, st.SearchStrategy[EventData]] = {}


def data_of(event_type: str) -> st.SearchStrategy[EventData]:
    """Valid data of one event type, generated from its model's annotations."""
    if event_type not in _data_strategies:
        _data_strategies[event_type] = for_model(DEFAULT_REGISTRY.model_for(event_type))
    return _data_strategies[event_type]


any_type = st.sampled_from(DEFAULT_REGISTRY.types())
times = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
).map(lambda t: t.astimezone(UTC))
ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=40)


def events(event_type: str | None = None) -> st.SearchStrategy[Event]:
    """A single valid, hashed event of `event_type` (or any type)."""
    return sealed_events(event_type).map(lambda sealed: sealed.event)


@st.composite
def sealed_events(draw: Any, event_type: str | None = None) -> SealedEvent:
    """A single valid event of `event_type` (or any type) as a chain seals it, with its JSON."""
    chosen = event_type or draw(any_type)
    chain = EpisodeChain(
        draw(ids),
        tenant=draw(st.from_regex(r"\A[A-Za-z0-9_.-]{1,20}\Z")),
        source="loopline://test",
        next_seq=draw(st.integers(0, 10_000)),
        prevhash=draw(st.from_regex(r"\A[0-9a-f]{64}\Z")),
        clock=lambda: datetime(2026, 1, 1, tzinfo=UTC),
    )
    return chain.seal(
        draw(data_of(chosen)),
        subject=draw(st.none() | ids),
        time=draw(times) + timedelta(microseconds=draw(st.integers(0, 999_999))),
    )
