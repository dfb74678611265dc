"""The detector's I/O around the pure rules: context in, deduplicated edge-case events out. No faust.

Each distinct case (fingerprint) has its own stream, `edgecase:<fingerprint>`, chained like an
episode: its events are then archived, audited and projected like any other, and the projection
row (`proj_edge_cases`) is both the stream's tip and the deduplicator's memory.

Publish first, record second. `on_event` / `on_rejected` only build the reports (chained after the
archived tip, or after a report of the same call not recorded yet); the caller publishes them and,
once the broker acknowledged them, calls `record`, which writes them to the archive strictly (a
concurrent writer's event makes it back off instead of forking the chain). A crash between the two
loses nothing: the report is on the topic, and the projector archives it from there (or sees it as
a duplicate when `record` got there first). A report that was built but never recorded (its
publish failed) is rolled back when its lane builds the next batch, so the retried batch reports
it again instead of the deduplicator swallowing it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from bridge.audit.event_keys import EventKey
from bridge.detect import Deduplicator, EdgeCaseDetector, EpisodeContext, Finding, Rejected
from bridge.store import ArchiveRecord, ProjectionConflict, SqlEpisodeReader, SqlEventArchive
from schemas.chain import EpisodeChain
from schemas.codec import to_structured
from schemas.envelope import Event

log = logging.getLogger(__name__)
STREAM_PREFIX = "edgecase:"
_WRITE_KINDS = frozenset({"write", "irreversible"})


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
        signer: EventKey | None = None,
    ) -> None:
        self.archive, self.signer = archive, signer
        self.reader = SqlEpisodeReader(archive.engine)
        self.detector = detector
        self.dedup = dedup
        self.source = source
        self._clock = clock or (lambda: datetime.now(UTC))
        self._pending: dict[str, dict[str, tuple[int, str]]] = {}  # lane → stream → unrecorded tip

    def now(self) -> datetime:
        """The emitter's clock (event times and the dedup window both use it)."""
        return self._clock()

    def begin(self, lane: str) -> None:
        """Start a batch of `lane` (events or dead letters): reports of its last batch that were
        built but never recorded are forgotten, so the deduplicator admits them again."""
        for stream in self._pending.pop(lane, {}):
            self.dedup.forget(stream.removeprefix(STREAM_PREFIX))

    def on_event(self, event: Event, *, lane: str = "events") -> list[Event]:
        """Edge-case events to publish, then `record`, for `event`."""
        context = self.episode_context(event.episodeid) if self.detector.needs_episode(event) else None
        return self._emit_all(self.detector.evaluate(event, context), lane)

    def on_rejected(self, rejected: Rejected, *, lane: str = "rejected") -> list[Event]:
        """Edge-case events to publish, then `record`, for a dead-lettered message."""
        return self._emit_all(self.detector.evaluate_rejected(rejected), lane)

    def record(self, events: list[Event]) -> list[Event]:
        """Archive published reports (strictly, each on its own); the ones recorded (or already
        archived by the projector) are returned. One another writer beat to its seq is logged: the
        projector refuses the published copy as `seq_taken`, so the chain never forks."""
        recorded = []
        for event in events:
            for pending in self._pending.values():
                pending.pop(event.episodeid, None)
            mac = None if self.signer is None else self.signer.stamp(to_structured(event))
            try:
                self.archive.append([ArchiveRecord.of(event, mac=mac)], strict=True)
            except ProjectionConflict:
                log.warning("edge case %s: seq %d was taken by another writer", event.episodeid, event.seq)
                self.dedup.forget(event.episodeid.removeprefix(STREAM_PREFIX))
                continue
            recorded.append(event)
        return recorded

    def episode_context(self, episode_id: str) -> EpisodeContext | None:
        """The episode as the projections know it, for rules that judge an event against it."""
        detail = self.reader.get_episode(episode_id)
        if detail is None:
            return None
        writes = tuple(
            c.tool for c in detail.tool_calls if c.outcome == "ok" and (c.side_effect or "") in _WRITE_KINDS
        )
        return EpisodeContext(episode_id, detail.episode.status, writes)

    def _emit_all(self, findings: list[Finding], lane: str) -> list[Event]:
        return [event for finding in findings if (event := self._emit(finding, lane)) is not None]

    def _emit(self, finding: Finding, lane: str) -> Event | None:
        fp, stream = finding.fingerprint, STREAM_PREFIX + finding.fingerprint
        pending = self._pending.setdefault(lane, {})
        if not self.dedup.admit(fp, None if self.dedup.remembers(fp) else self._last_reported(fp)):
            return None
        try:
            next_seq, prevhash = pending.get(stream) or self.archive.stream_tip(stream)
        except Exception:
            self.dedup.forget(fp)
            raise
        chain = EpisodeChain(
            stream,
            tenant=finding.tenant,
            source=self.source,
            next_seq=next_seq,
            prevhash=prevhash,
            clock=self._clock,
        )
        event = chain.append(finding.to_data(), subject=finding.rule)
        pending[stream] = (chain.next_seq, chain.prevhash)
        return event

    def _last_reported(self, fp: str) -> datetime | None:
        case = self.reader.get_edge_case(fp)
        return None if case is None else case.last_seen
