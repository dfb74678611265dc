"""Canary routing: a configured share of episodes goes to the canary adapter, sticky per work item.

A work item's bucket is an HMAC-SHA256, under a secret only the bridge holds, of the canary's id
and the item's id, read as a number in [0, 1); items below the share go to the canary. The same
item always lands on the same side for one canary and secret (a retried or resumed item is never
served by both), each new canary draws a fresh sample of items, and a submitter who knows the
canary's id and its own item ids still cannot tell which arm an item gets, so cannot choose. Each policy client carries its `PolicyRef` (model name, adapter id, route), which
the recorder writes on `episode.started`, so every episode says which adapter served it.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from dataclasses import dataclass

from engine import Policy

MIN_SECRET_BYTES = 16


def bucket(secret: bytes, canary_id: str, work_item_id: str) -> float:
    """Where a work item falls in [0, 1) for this canary under `secret` (stable across processes
    that share the secret)."""
    digest = hmac.new(secret, f"{canary_id}\0{work_item_id}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class CanaryRoute:
    """The canary's client, its adapter id and its share of work items."""

    policy: Policy
    adapter_id: str
    share: float

    def __post_init__(self) -> None:
        if not 0 <= self.share <= 1:
            raise ValueError(f"a canary share lies between 0 and 1, not {self.share}")


class CanaryRouter:
    """Picks the policy for each work item: the canary for its share, else the champion.
    Thread-safe; `set_routes` swaps champion and canary while episodes run (those in flight keep
    the policy they started with)."""

    def __init__(self, champion: Policy, canary: CanaryRoute | None = None, *, secret: bytes) -> None:
        """`secret` keys the buckets (`bucket`); at least 16 bytes."""
        if len(secret) < MIN_SECRET_BYTES:
            raise ValueError(f"the canary secret needs at least {MIN_SECRET_BYTES} bytes")
        self._secret = secret
        self._lock = threading.Lock()
        self._champion = champion
        self._canary = canary

    @property
    def champion(self) -> Policy:
        """The policy that serves every item outside the canary's share now."""
        with self._lock:
            return self._champion

    def set_routes(self, champion: Policy, canary: CanaryRoute | None) -> None:
        """Serve from now on with this champion and canary (None: no canary)."""
        with self._lock:
            self._champion, self._canary = champion, canary

    def pick(self, work_item_id: str) -> Policy:
        """The policy that works this item."""
        with self._lock:
            champion, canary = self._champion, self._canary
        if canary is not None and bucket(self._secret, canary.adapter_id, work_item_id) < canary.share:
            return canary.policy
        return champion
