"""The RCM sandbox's world store: `adapters.world_store.WorldStore` over the rcm `World`."""

from __future__ import annotations

from typing import get_args

from adapters.rcm.world import Collection, World
from adapters.world_store import WorldStore

COLLECTIONS: tuple[str, ...] = get_args(Collection)
META = ("today", "practice", "violations", "counters")


class SqlWorldStore(WorldStore[World]):
    """The rcm world, durable in SQL, current in memory."""

    def __init__(self, url: str) -> None:
        super().__init__(url, name="rcm", world_type=World, collections=COLLECTIONS, meta=META)
