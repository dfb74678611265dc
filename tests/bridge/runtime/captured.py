"""The runtime's recorders in tests: bridge.recording's real `EpisodeRecorder` over its in-memory sink."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from bridge.phi import Redactor, SnapshotRedact
from bridge.recording import EpisodeRecorder, InMemoryEventSink
from engine import Recorder
from schemas import Event

SOURCE = "loopline://tests/runtime"


def _synthetic_world(snapshot: dict[str, Any]) -> dict[str, Any]:
    return snapshot  # the toy world is synthetic: nothing in it is PHI


class CapturedEpisodes:
    """A recorder factory for `EpisodeRunner`; every event of every episode lands in one sink."""

    def __init__(
        self,
        redactor: Redactor,
        *,
        args_models: Mapping[str, type[BaseModel]],
        clock: Callable[[], Any],
        id_factory: Callable[[], str],
        snapshot_redact: SnapshotRedact = _synthetic_world,
    ) -> None:
        self.sink = InMemoryEventSink()
        self._redactor = redactor
        self._args_models = dict(args_models)
        self._clock = clock
        self._id_factory = id_factory
        self._snapshot_redact = snapshot_redact

    def __call__(self, episode_id: str) -> Recorder:
        return EpisodeRecorder(
            episode_id,
            sink=self.sink,
            redactor=self._redactor,
            source=SOURCE,
            args_models=self._args_models,
            snapshot_redact=self._snapshot_redact,
            clock=self._clock,
            id_factory=self._id_factory,
        )

    @property
    def events(self) -> list[Event]:
        return self.sink.events
