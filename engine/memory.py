"""`MemoryRecorder`: the `Recorder` port over a hash chain in memory, for evaluation and tests.

It writes what `bridge.recording.EpisodeRecorder` writes (both build their events in
`engine.chained.ChainRecorder`) without redaction or a durable sink: evaluation worlds are
synthetic.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from engine.chained import ChainRecorder
from schemas.chain import EpisodeChain
from schemas.envelope import Event
from schemas.ids import new_id
from schemas.registry import EventData


class MemoryRecorder(ChainRecorder):
    """Records one episode's events in `events`, in order."""

    def __init__(
        self,
        episode_id: str,
        *,
        tenant: str = "sim",
        source: str = "loopline://engine",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        id_factory: Callable[[], str] = new_id,
    ) -> None:
        self._chain = EpisodeChain(
            episode_id, tenant=tenant, source=source, clock=clock, id_factory=id_factory
        )
        self.events: list[Event] = []

    def append(self, data: EventData, subject: str | None = None) -> Event:
        """Record any event of the episode (e.g. the verifier's `verifier.scored` after the end)."""
        self.events.append(self._chain.append(data, subject=subject))
        return self.events[-1]

    _emit = append
