"""The detector's I/O around the pure rules: context in, deduplicated edge-case events out. No faust.

Each distinct case (fingerprint) has its own stream, `edgecase:<fingerprint>`, chained like an
episode: its events are then archived, audited and projected like any other, and the projection
row (`proj_edge_cases`) is both the stream's tip and the deduplicator's memory. The emitter writes
an edge-case event to the archive itself, strictly (one transaction; a concurrent writer's event
makes it back off instead of forking the chain), and only then returns it for publishing; the
projector later sees it on the topic as a duplicate and changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from bridge.detect import Deduplicator, EdgeCaseDetector, EpisodeContext, Finding, Rejected
from bridge.store import ArchiveRecord, ProjectionConflict, SqlEpisodeReader, SqlEventArchive
from schemas.chain import EpisodeChain
from schemas.envelope import Event

log = logging.getLogger(__name__)
STREAM_PREFIX = "edgecase:"
_WRITE_KINDS = frozenset({"write", "irreversible"})
_ATTEMPTS = 3


class EdgeCaseEmitter:
    """Runs the rules over events and dead letters and writes each new edge case once per window."""

    def __init__(
        self,
        archive: SqlEventArchive,
        detector: EdgeCaseDetector,
        dedup: Deduplicator,
        *,
        source: str,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.archive = archive
        self.reader = SqlEpisodeReader(archive.engine)
        self.detector = detector
        self.dedup = dedup
        self.source = source
        self._clock = clock or (lambda: datetime.now(UTC))

    def now(self) -> datetime:
        """The emitter's clock (event times and the dedup window both use it)."""
        return self._clock()

    def on_event(self, event: Event) -> list[Event]:
        """Edge-case events to publish for `event` (already archived)."""
        context = self.episode_context(event.episodeid) if self.detector.needs_episode(event) else None
        return self._emit_all(self.detector.evaluate(event, context))

    def on_rejected(self, rejected: Rejected) -> list[Event]:
        """Edge-case events to publish for a dead-lettered message (already archived)."""
        return self._emit_all(self.detector.evaluate_rejected(rejected))

    def on_all_rejected(self, rejected: list[Rejected]) -> list[Event]:
        """Edge-case events to publish for a batch of dead letters."""
        return [event for item in rejected for event in self.on_rejected(item)]

    def episode_context(self, episode_id: str) -> EpisodeContext | None:
        """The episode as the projections know it, for rules that judge an event against it."""
        detail = self.reader.get_episode(episode_id)
        if detail is None:
            return None
        writes = tuple(
            c.tool for c in detail.tool_calls if c.outcome == "ok" and (c.side_effect or "") in _WRITE_KINDS
        )
        return EpisodeContext(episode_id, detail.episode.status, writes)

    def _emit_all(self, findings: list[Finding]) -> list[Event]:
        return [event for finding in findings if (event := self._emit(finding)) is not None]

    def _emit(self, finding: Finding) -> Event | None:
        fp = finding.fingerprint
        for _ in range(_ATTEMPTS):
            if not self.dedup.admit(fp, None if self.dedup.remembers(fp) else self._last_reported(fp)):
                return None
            next_seq, prevhash = self.archive.stream_tip(STREAM_PREFIX + fp)
            chain = EpisodeChain(
                STREAM_PREFIX + fp, tenant=finding.tenant, source=self.source,
                next_seq=next_seq, prevhash=prevhash, clock=self._clock,
            )  # fmt: skip
            event = chain.append(finding.to_data(), subject=finding.rule)
            try:
                self.archive.append([ArchiveRecord.of(event)], strict=True)
            except ProjectionConflict:
                # Another worker reported this case a moment ago: judge again against its report.
                self.dedup.forget(fp)
                continue
            except Exception:
                self.dedup.forget(fp)
                raise
            return event
        log.warning("edge case %s: gave up after %d conflicting writers", fp, _ATTEMPTS)
        return None

    def _last_reported(self, fp: str) -> datetime | None:
        case = self.reader.get_edge_case(fp)
        return None if case is None else case.last_seen
