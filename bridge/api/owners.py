"""`EpisodeOwners`: which caller started each episode, so an agent reads only its own.

Kept in this process's memory, bounded: an episode whose owner was forgotten (past the limit, or
before a restart) reads as absent to every agent. That fails closed; reviewers and operators read
every episode from the archive.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

MAX_REMEMBERED_OWNERS = 100_000
"""Episodes whose owner this process remembers; the oldest are forgotten first."""


class EpisodeOwners:
    """Episode id → the id of the caller that started it."""

    def __init__(self, limit: int = MAX_REMEMBERED_OWNERS) -> None:
        self._owners: OrderedDict[str, str] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def add(self, episode_id: str, caller_id: str) -> None:
        """Remember that `caller_id` started `episode_id`."""
        with self._lock:
            self._owners[episode_id] = caller_id
            while len(self._owners) > self._limit:
                self._owners.popitem(last=False)

    def owns(self, caller_id: str, episode_id: str) -> bool:
        """Whether `caller_id` started `episode_id` (as far as this process remembers)."""
        with self._lock:
            return self._owners.get(episode_id) == caller_id
