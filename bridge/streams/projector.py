"""The projector's work on one batch: decode, archive + project, dead-letter the rest. No faust here.

Bad input never stops the stream: a message that does not decode, or that `admission` refuses
(not MACed by a named producer, or not the next event of its stream), is dead-lettered; an event the
database refuses (while the database is otherwise fine) is dead-lettered as `store_failed`. Only a
database outage stops the batch (`StoreUnavailable`), so the agent waits and retries it rather
than dead-lettering everything in sight.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bridge.audit.event_keys import Keyring, KeyringFile, mac_of
from bridge.store import AppendResult, ArchiveRecord, SqlEventArchive, StoreError
from bridge.streams.admission import Admission, Item
from bridge.streams.deadletter import DeadLetter, RawMessage
from bridge.streams.decode import Rejection, decode_message

log = logging.getLogger(__name__)
STAGE = "projector"


class StoreUnavailable(RuntimeError):
    """The database does not answer; retry the batch later."""


@dataclass(frozen=True)
class ProjectedBatch:
    """What one batch did."""

    appended: AppendResult
    dead_letters: list[DeadLetter]


class Projector:
    """Turns consumed messages into archive rows and projection updates."""

    def __init__(
        self,
        archive: SqlEventArchive,
        *,
        keyring: Keyring | KeyringFile | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.archive = archive
        self.admission = Admission(archive.engine, keyring)
        self._clock = clock or (lambda: datetime.now(UTC))

    def handle(self, messages: Sequence[RawMessage]) -> ProjectedBatch:
        """Archive and project every valid message of the batch; dead-letter the others."""
        decoded: list[Item] = []
        dead: list[DeadLetter] = []
        for message in messages:
            out = decode_message(message.value, message.headers)
            if isinstance(out, Rejection):
                dead.append(self._dead(message, out.reason_code, out.reason))
            else:
                decoded.append((out, message))
        try:
            admitted = self.admission.admit(decoded)
        except StoreError as exc:
            if not self.archive.ping():
                raise StoreUnavailable("the archive database does not answer") from exc
            raise
        dead.extend(
            self._dead(message, refusal.code, refusal.reason) for message, refusal in admitted.refused
        )
        pending = [
            (ArchiveRecord(d.event, d.structured, m.topic, m.partition, m.offset, mac_of(m.headers)), m)
            for d, m in admitted.accepted
        ]
        try:
            appended = self.archive.append([record for record, _ in pending])
        except StoreError:
            log.warning("batch of %d events failed; retrying them one by one", len(pending), exc_info=True)
            appended = self._one_by_one(pending, dead)
        return ProjectedBatch(appended, dead)

    def _one_by_one(
        self, pending: list[tuple[ArchiveRecord, RawMessage]], dead: list[DeadLetter]
    ) -> AppendResult:
        inserted = duplicates = 0
        for record, message in pending:
            try:
                result = self.archive.append([record])
            except StoreError as exc:
                if not self.archive.ping():
                    raise StoreUnavailable("the archive database does not answer") from exc
                dead.append(self._dead(message, "store_failed", f"the archive refused the event: {exc}"))
                continue
            inserted += result.inserted
            duplicates += result.duplicates
        return AppendResult(inserted, duplicates)

    def _dead(self, message: RawMessage, code: str, reason: str) -> DeadLetter:
        log.info("dead-lettering %s[%d]@%d: %s", message.topic, message.partition, message.offset, reason)
        return DeadLetter.build(message, code, reason, stage=STAGE, failed_at=self._clock())
