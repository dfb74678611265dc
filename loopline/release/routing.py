"""The bridge's canary routing kept in step with the release store (docs/release.md).

`ReleaseRouter` is the runner's `CanaryRouter`: before each episode picks its policy, the router
re-reads the release state when `check_s` has passed since its last look (two small queries), and
swaps champion and canary when they changed. So `loopline adapters canary | promote | rollback`
change what a running bridge routes within `check_s`, without a restart; episodes in flight keep
the policy they started with.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Literal

from bridge.runtime.canary import CanaryRoute, CanaryRouter
from engine import Policy
from training.release.manager import ReleaseManager, Routing

ClientFor = Callable[[str, str | None, Literal["champion", "canary"]], Policy]
"""(served name, adapter id or None for the base model, route) → the policy client that serves it."""

log = logging.getLogger(__name__)

RouteKey = tuple[str | None, str | None, float]


def route_key(routing: Routing) -> RouteKey:
    """What identifies a routing: champion id, canary id, canary share."""
    champion = routing.champion.adapter_id if routing.champion else None
    canary = routing.canary.adapter_id if routing.canary else None
    return champion, canary, routing.canary_share


class ReleaseRouter(CanaryRouter):
    """A `CanaryRouter` that follows the release store: the champion (or the base model, served
    as `base_name`) and the canary with its share."""

    def __init__(
        self,
        manager: ReleaseManager,
        client_for: ClientFor,
        *,
        base_name: str,
        check_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.manager = manager
        self.client_for = client_for
        self.base_name = base_name
        self.check_s = check_s
        self.clock = clock
        self._refresh_lock = threading.Lock()
        self._key: RouteKey | None = None
        self._checked_at = -float("inf")
        super().__init__(client_for(base_name, None, "champion"))
        self.refresh(force=True)

    @property
    def key(self) -> RouteKey | None:
        """The routing served now (champion id, canary id, share)."""
        return self._key

    def refresh(self, *, force: bool = False) -> bool:
        """Re-read the release state when `check_s` has passed (or `force`); True when the routes
        changed. A store that cannot be read leaves the routes as they are until the next look."""
        with self._refresh_lock:
            now = self.clock()
            if not force and now - self._checked_at < self.check_s:
                return False
            self._checked_at = now
            routing = self.manager.routing()
            key = route_key(routing)
            if key == self._key:
                return False
            champion = (
                self.client_for(routing.champion.served_name, routing.champion.adapter_id, "champion")
                if routing.champion
                else self.client_for(self.base_name, None, "champion")
            )
            canary = (
                CanaryRoute(
                    self.client_for(routing.canary.served_name, routing.canary.adapter_id, "canary"),
                    routing.canary.adapter_id,
                    routing.canary_share,
                )
                if routing.canary
                else None
            )
            self.set_routes(champion, canary)
            self._key = key
            return True

    def pick(self, work_item_id: str) -> Policy:
        """The policy that works this item, by the release state as of at most `check_s` ago."""
        try:
            self.refresh()
        except Exception as exc:  # the store's driver errors vary (SQLite, Postgres); serving goes on
            log.warning("release store unreadable, routes unchanged: %s: %s", type(exc).__name__, exc)
        return super().pick(work_item_id)
