"""`CallerQuota`: how many episodes each caller may have running or queued at once.

Episodes share one pool of worker threads in arrival order, so without a cap one caller's flood
of work items queues ahead of everyone else's. The cap bounds what any caller holds in the queue;
a start past it is a 429 that says so, and the caller's slot frees when one of its runs ends.
"""

from __future__ import annotations

import threading

DEFAULT_MAX_PER_CALLER = 16


class CallerQuota:
    """Running and queued episodes per caller id, at most `max_per_caller` each."""

    def __init__(self, max_per_caller: int = DEFAULT_MAX_PER_CALLER) -> None:
        if max_per_caller < 1:
            raise ValueError(f"a caller may run at least one episode, not {max_per_caller}")
        self.max_per_caller = max_per_caller
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def acquire(self, caller_id: str) -> bool:
        """Take a slot for `caller_id`; False when it holds `max_per_caller` already."""
        with self._lock:
            held = self._held.get(caller_id, 0)
            if held >= self.max_per_caller:
                return False
            self._held[caller_id] = held + 1
            return True

    def release(self, caller_id: str) -> None:
        """Give back one of `caller_id`'s slots (its run ended, or never started)."""
        with self._lock:
            left = self._held.get(caller_id, 0) - 1
            if left > 0:
                self._held[caller_id] = left
            else:
                self._held.pop(caller_id, None)

    def held(self, caller_id: str) -> int:
        """The slots `caller_id` holds now."""
        with self._lock:
            return self._held.get(caller_id, 0)

    def refusal(self) -> str:
        """What a caller past its cap is told."""
        return (
            f"this caller has {self.max_per_caller} episodes running or queued, the most one caller may "
            "hold (LOOPLINE_BRIDGE_MAX_EPISODES_PER_CALLER); wait for one to finish, then start more"
        )
