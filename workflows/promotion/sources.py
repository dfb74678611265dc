"""Where the activities read episodes and edge cases: the event archive and its projections."""

from __future__ import annotations

from collections.abc import Sequence

from bridge.store.reader import EpisodeStore
from bridge.store.views import EdgeCaseView
from schemas.codec import from_structured
from schemas.envelope import Event
from workflows.promotion.activities import EventSource


def archive_events(reader: EpisodeStore) -> EventSource:
    """An episode's archived events, decoded (upcast to current versions), in `seq` order."""

    def events(episode_id: str) -> list[Event]:
        return [from_structured(stored.structured) for stored in reader.episode_events(episode_id)]

    return events


def archive_cases(reader: EpisodeStore, limit: int = 1000) -> Sequence[EdgeCaseView]:
    """Every edge case the archive knows (`proj_edge_cases`)."""
    return reader.list_edge_cases(limit=limit)
