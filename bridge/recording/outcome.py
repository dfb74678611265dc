"""Recording a later business fact (`outcome.observed`) on an episode that ended long ago.

The paid claim or the won appeal arrives days later, often in another process, so the writer
resumes the episode's stream from the store's head instead of holding its recorder.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel

from bridge.phi import KnownPhi, Redactor
from bridge.recording.recorder import EpisodeRecorder, utc_now
from bridge.recording.sink import StreamConflict, StreamStore
from schemas import Event, new_id
from schemas.events import OutcomeObserved


def record_outcome(
    store: StreamStore,
    episode_id: str,
    outcome: OutcomeObserved,
    *,
    redactor: Redactor,
    source: str,
    details_model: type[BaseModel] | None = None,
    attempts: int = 3,
    clock: Callable[[], datetime] = utc_now,
    id_factory: Callable[[], str] = new_id,
    known: KnownPhi | None = None,
    traceparent: str | None = None,
) -> Event:
    """Append `outcome.observed` to an episode recorded earlier, continuing its hash chain from
    `store`'s head (`UnknownStream` if it holds nothing of the episode); when another writer
    appended meanwhile, the fork is refused and the append retried on the new head. `known`: the
    PHI the episode showed (`CaptureService.record_outcome` rebuilds it), scrubbed from free text;
    `traceparent`: the episode's trace context, as its earlier events carry it."""
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    for attempt in range(attempts):
        head = store.stream_head(episode_id)
        recorder = EpisodeRecorder(
            episode_id,
            sink=store,
            redactor=redactor,
            source=source,
            head=head,
            clock=clock,
            id_factory=id_factory,
            known=known,
            traceparent=traceparent,
        )
        try:
            return recorder.outcome_observed(outcome, details_model=details_model)
        except StreamConflict:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")
