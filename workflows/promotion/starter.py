"""The starter: every new edge case in the archive starts its promotion workflow.

Why a small starter and not the stream worker: `edge_case.detected` events are archived by the
projector and land in `proj_edge_cases`, one row per fingerprint, so polling that table (indexed,
tiny) sees each case once, survives restarts without offsets, and keeps `temporalio` out of
`bridge.streams` (import-linter confines it to `workflows`). The workflow id comes from the
fingerprint, so a case seen twice, by two starters or after a restart, starts one workflow.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from temporalio.client import Client

from bridge.store.views import EdgeCaseView
from workflows.promotion.client import start_promotion
from workflows.promotion.models import ReviewTimers

log = logging.getLogger(__name__)
ListCases = Callable[[], Sequence[EdgeCaseView]]
DEFAULT_SKIPPED_RULES = frozenset({"schema_violation.dead_letter"})
"""Rules whose cases have no episode to replay."""


@dataclass
class EdgeCaseStarter:
    """Starts a promotion for every edge case it has not handled yet."""

    client: Client
    list_cases: ListCases
    queue: str
    timers: ReviewTimers = field(default_factory=ReviewTimers)
    rules: Collection[str] | None = None
    """Only these rules (None: every rule but the skipped ones)."""
    skipped_rules: Collection[str] = DEFAULT_SKIPPED_RULES
    seen: set[str] = field(default_factory=set)

    async def poll_once(self) -> list[str]:
        """Start what is new; the fingerprints started."""
        started = []
        for case in self.list_cases():
            if case.fingerprint in self.seen or case.rule in self.skipped_rules:
                continue
            if self.rules is not None and case.rule not in self.rules:
                continue
            new = await start_promotion(
                self.client,
                fingerprint=case.fingerprint,
                episode_id=case.episode_id,
                rule=case.rule,
                queue=self.queue,
                timers=self.timers,
            )
            self.seen.add(case.fingerprint)
            if new:
                started.append(case.fingerprint)
                log.info("promotion started for %s (%s)", case.fingerprint, case.rule)
        return started

    async def run(self, stop: asyncio.Event, interval_s: float = 0.5) -> None:
        """Poll until `stop` is set."""
        while not stop.is_set():
            try:
                await self.poll_once()
            except Exception:  # a database or Temporal hiccup: log, retry next round
                log.exception("edge-case starter: poll failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=interval_s)
