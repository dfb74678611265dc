"""The credit sandbox's world store: `adapters.world_store.WorldStore` over the deal system's `World`."""

from __future__ import annotations

from adapters.credit.world import World
from adapters.world_store import WorldStore

COLLECTIONS = ("packages", "recommendations", "requests", "escalations")
META = ("today", "policy", "counters")


class SqlWorldStore(WorldStore[World]):
    """The credit world, durable in SQL, current in memory."""

    def __init__(self, url: str) -> None:
        super().__init__(url, name="credit", world_type=World, collections=COLLECTIONS, meta=META)
