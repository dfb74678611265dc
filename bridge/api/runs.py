"""`RunRegistry`: the episodes this process started, so `GET /v1/runs/{id}` can answer while they run."""

from __future__ import annotations

import threading
from concurrent.futures import Future

from engine import EpisodeResult

MAX_REMEMBERED_RUNS = 10_000
"""Runs answered from memory; the archive holds every episode for good."""


class RunRegistry:
    """Futures of started runs by episode id, the oldest finished ones forgotten past the limit."""

    def __init__(self) -> None:
        self._runs: dict[str, Future[EpisodeResult]] = {}
        self._lock = threading.Lock()

    def add(self, episode_id: str, future: Future[EpisodeResult]) -> None:
        """Remember a started run (forgetting the oldest finished ones past `MAX_REMEMBERED_RUNS`)."""
        with self._lock:
            self._runs[episode_id] = future
            excess = len(self._runs) - MAX_REMEMBERED_RUNS
            if excess > 0:  # dicts keep insertion order: the first finished runs are the oldest
                for old in [key for key, run in self._runs.items() if run.done()][:excess]:
                    del self._runs[old]

    def running(self) -> list[Future[EpisodeResult]]:
        """The runs not finished yet (queued or running)."""
        with self._lock:
            return [run for run in self._runs.values() if not run.done()]

    def get(self, episode_id: str) -> Future[EpisodeResult] | None:
        """The run of `episode_id`, if this process started it and still remembers it."""
        with self._lock:
            return self._runs.get(episode_id)
