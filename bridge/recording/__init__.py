"""Recording an episode: the events the runtime reports, redacted, hash-chained, appended to a sink.

    recorder = EpisodeRecorder(episode_id, sink=outbox, redactor=redactor, source=...)
    recorder.tool_called(call, SideEffect.READ, ArgsModel)  # returns once the sink holds it
    record_outcome(outbox, episode_id, OutcomeObserved(...), redactor=redactor, source=...)

`EventSink` is the port (`engine.sink`); `bridge.capture.SqliteOutbox` is the durable sink and `InMemoryEventSink`
the fake. PHI is redacted by `bridge.phi`. docs/capture.md explains both.
"""

from bridge.recording.outcome import record_outcome
from bridge.recording.recorder import EpisodeRecorder
from bridge.recording.sink import (
    GENESIS_HEAD,
    CaptureUnavailable,
    InMemoryEventSink,
    StreamConflict,
    StreamHead,
    StreamStore,
    UnknownStream,
)
from engine import EventSink

__all__ = [
    "GENESIS_HEAD",
    "CaptureUnavailable",
    "EpisodeRecorder",
    "EventSink",
    "InMemoryEventSink",
    "StreamConflict",
    "StreamHead",
    "StreamStore",
    "UnknownStream",
    "record_outcome",
]
