"""The synchronous work of each agent on one batch, in one object. No faust here.

`StreamWork` is what runs in a worker thread (tests, small deployments) or in a child process
(`offload.py`): the projector's archive + projections, and the detector's rules + reports.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bridge.audit.event_keys import KeyringFile
from bridge.detect import Deduplicator, EdgeCaseDetector, Rejected
from bridge.store import SqlEventArchive, StoreError
from bridge.streams.config import StreamsConfig
from bridge.streams.deadletter import DeadLetter, RawMessage
from bridge.streams.decode import Decoded, decode_message
from bridge.streams.emitter import EdgeCaseEmitter
from bridge.streams.heads_checkpoint import HeadsCheckpointer
from bridge.streams.projector import ProjectedBatch, Projector
from schemas.envelope import Event

log = logging.getLogger(__name__)
DETECTOR_STAGE = "detector"


@dataclass(frozen=True)
class DetectedBatch:
    """What the detector made of one batch."""

    reports: list[Event] = field(default_factory=list)
    """Edge-case events to publish, then `StreamWork.record`."""
    dead_letters: list[DeadLetter] = field(default_factory=list)
    """Messages the rules crashed on (a bug, recorded as data rather than stalling the stream)."""


class StreamWork:
    """The projector and the detector over one archive."""

    def __init__(
        self, archive: SqlEventArchive, config: StreamsConfig, *, clock: Callable[[], datetime] | None = None
    ) -> None:
        self._clock = clock or (lambda: datetime.now(UTC))
        keyring = None if config.event_keys_file is None else KeyringFile(config.event_keys_file)
        self.projector = Projector(archive, keyring=keyring, clock=self._clock)
        self.emitter = EdgeCaseEmitter(
            archive,
            EdgeCaseDetector(config.detect),
            Deduplicator(timedelta(seconds=config.dedup_window_s), clock=self._clock),
            source=config.source,
            clock=self._clock,
            signer=None if keyring is None else config.detector_key(),
        )
        self.checkpoints = HeadsCheckpointer.from_config(config)

    @classmethod
    def from_config(cls, config: StreamsConfig) -> StreamWork:
        """Work over the archive `config.db_url` names."""
        return cls(SqlEventArchive(config.db_url), config)

    def project(self, messages: list[RawMessage]) -> ProjectedBatch:
        """Archive and project the batch; dead-letter what does not decode."""
        return self.projector.handle(messages)

    def detect(self, messages: list[RawMessage]) -> DetectedBatch:
        """Run the rules over every valid event of the batch (the projector dead-letters the rest)."""
        out = DetectedBatch()
        self.emitter.begin("events")
        for message in messages:
            decoded = decode_message(message.value, message.headers)
            if not isinstance(decoded, Decoded):
                continue
            try:
                out.reports.extend(self.emitter.on_event(decoded.event))
            except StoreError:
                raise  # the database, not the rules: retry the batch
            except Exception as exc:
                log.exception("edge-case rules failed on event %s", decoded.event.id)
                reason = f"edge-case rules failed: {type(exc).__name__}: {exc}"
                out.dead_letters.append(
                    DeadLetter.build(
                        message, "detector_failed", reason, stage=DETECTOR_STAGE, failed_at=self._clock()
                    )
                )
        return out

    def detect_rejected(self, rejected: list[Rejected]) -> list[Event]:
        """Schema-violation reports for dead letters, to publish, then `record`."""
        self.emitter.begin("rejected")
        return [event for item in rejected for event in self.emitter.on_rejected(item)]

    def record(self, reports: list[Event]) -> list[Event]:
        """Archive reports the broker acknowledged, and checkpoint their stream heads when due."""
        recorded = self.emitter.record(reports)
        if self.checkpoints is not None:
            self.checkpoints.note(recorded)
        return recorded
