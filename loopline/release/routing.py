"""The bridge's canary routing kept in step with the release store (docs/release.md).

`ReleaseRouter` is the runner's `CanaryRouter`: before each episode picks its policy, the router
re-reads the release state when `check_s` has passed since its last look (two small queries), and
swaps champion and canary when they changed. So `loopline adapters canary | promote | rollback`
change what a running bridge routes within `check_s`, without a restart; episodes in flight keep
the policy they started with.

Given a `verify` check (`served_fingerprints`), the router routes to an adapter only when the
policy server reports, for its served name, the fingerprint the release store registered. A
canary that fails the check gets no traffic; a champion that fails it leaves the previous champion
serving; either way the router looks again at its next check.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import httpx

from bridge.runtime.canary import CanaryRoute, CanaryRouter
from engine import Policy
from training.release.manager import ReleaseManager, Routing
from training.release.store import AdapterRecord
from training.serve.pool import AdapterError, adapter_fingerprint

ClientFor = Callable[[str, str | None, Literal["champion", "canary"]], Policy]
"""(served name, adapter id or None for the base model, route) → the policy client that serves it."""

FingerprintCheck = Callable[[str, str], str | None]
"""(served name, registered fingerprint) → why the policy server does not serve those files, or None."""

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
        verify: FingerprintCheck | None = None,
        secret: bytes,
    ) -> None:
        """`secret` keys the canary buckets (`bridge.runtime.canary.bucket`)."""
        self.manager = manager
        self.verify = verify
        self.client_for = client_for
        self.base_name = base_name
        self.check_s = check_s
        self.clock = clock
        self._refresh_lock = threading.Lock()
        self._key: RouteKey | None = None
        self._checked_at = -float("inf")
        super().__init__(client_for(base_name, None, "champion"), secret=secret)
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
            champion_ok = self._verified(routing.champion)
            canary_ok = self._verified(routing.canary)
            if routing.champion is None:
                champion = self.client_for(self.base_name, None, "champion")
            elif champion_ok:
                champion = self.client_for(
                    routing.champion.served_name, routing.champion.adapter_id, "champion"
                )
            else:
                champion = self.champion
            canary = (
                CanaryRoute(
                    self.client_for(routing.canary.served_name, routing.canary.adapter_id, "canary"),
                    routing.canary.adapter_id,
                    routing.canary_share,
                )
                if routing.canary and canary_ok
                else None
            )
            self.set_routes(champion, canary)
            # a route refused now is looked at again at the next check
            self._key = key if champion_ok and canary_ok else None
            return True

    def _verified(self, record: AdapterRecord | None) -> bool:
        if record is None or self.verify is None:
            return True
        problem = self.verify(record.served_name, record.fingerprint)
        if problem is not None:
            log.error("not routing to %s (%s): %s", record.served_name, record.adapter_id, problem)
        return problem is None

    def pick(self, work_item_id: str) -> Policy:
        """The policy that works this item, by the release state as of at most `check_s` ago."""
        try:
            self.refresh()
        except Exception as exc:  # the store's driver errors vary (SQLite, Postgres); serving goes on
            log.warning("release store unreadable, routes unchanged: %s: %s", type(exc).__name__, exc)
        return super().pick(work_item_id)


def served_fingerprints(
    base_url: str,
    api_key: str | None,
    *,
    timeout_s: float = 5.0,
    transport: httpx.BaseTransport | None = None,
) -> FingerprintCheck:
    """A `FingerprintCheck` that asks the policy server's `GET /models`. `loopline serve-policy`
    reports each adapter's `fingerprint`; vLLM reports none, only the folder it loaded (`root`), so
    then the files there (the shared volume, mounted here too) are hashed; a folder this process
    cannot read fails the check."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def check(served_name: str, fingerprint: str) -> str | None:
        try:
            with httpx.Client(headers=headers, timeout=timeout_s, transport=transport) as http:
                answer = http.get(f"{base_url.rstrip('/')}/models")
            answer.raise_for_status()
            models = {m.get("id"): m for m in answer.json().get("data", []) if isinstance(m, dict)}
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            return f"the policy server's model list is unreadable ({type(exc).__name__}: {exc})"
        served = models.get(served_name)
        if served is None:
            return f"the policy server does not serve {served_name!r}"
        if "fingerprint" not in served:
            return _root_problem(served_name, served.get("root"), fingerprint)
        if served.get("fingerprint") != fingerprint:
            return (
                f"the policy server serves {served_name!r} with fingerprint {served.get('fingerprint')!r}, "
                f"not the registered {fingerprint[:12]}…"
            )
        return None

    return check


def _root_problem(served_name: str, root: object, fingerprint: str) -> str | None:
    """Why the folder a server names as `root` does not hold the registered files, or None."""
    if not isinstance(root, str) or not root:
        return f"the policy server reports neither a fingerprint nor a folder for {served_name!r}"
    try:
        found = adapter_fingerprint(Path(root))
    except (AdapterError, OSError) as exc:
        return f"the policy server reports no fingerprint for {served_name!r}, and {root} is unreadable here: {exc}"
    if found != fingerprint:
        return f"the folder the policy server serves {served_name!r} from ({root}) holds other files ({found[:12]}…)"
    return None
