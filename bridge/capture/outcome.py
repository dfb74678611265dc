"""Recording a later business fact (`outcome.observed`) on an episode that ended long ago.

The paid claim or the won appeal arrives days after the episode, often in another process, so the
writer cannot hold the episode's recorder: it resumes the stream from the store's head instead.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel

from bridge.capture.recorder import EpisodeRecorder, utc_now
from bridge.capture.redactor import Redactor
from bridge.capture.sink import StreamConflict, StreamStore
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
) -> Event:
    """Append `outcome.observed` to an episode recorded earlier, continuing its hash chain.

    The head comes from `store` (`UnknownStream` if it holds nothing of the episode). If another
    writer appended to the episode in between, the append conflicts and is retried on the new head.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    for attempt in range(attempts):
        recorder = EpisodeRecorder(
            episode_id,
            sink=store,
            redactor=redactor,
            source=source,
            head=store.stream_head(episode_id),
            clock=clock,
            id_factory=id_factory,
        )
        try:
            return recorder.outcome_observed(outcome, details_model=details_model)
        except StreamConflict:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")
