"""Stream processors (faust lives here only): projector, edge-case detector, dead-letter topic.

`make_app(StreamsConfig)` builds the faust app; `run_worker` runs it. The per-batch work is in
faust-free modules (`work`, `projector`, `emitter`, `decode`, `deadletter`, `offload`), so it is
testable without a broker and reusable by `loopline replay`. Importing this package does not import faust.
"""

from bridge.streams.config import StreamsConfig
from bridge.streams.deadletter import DeadLetter, RawMessage, rejected_from_headers
from bridge.streams.decode import Decoded, Rejection, decode_message
from bridge.streams.emitter import EdgeCaseEmitter
from bridge.streams.projector import ProjectedBatch, Projector, StoreUnavailable
from bridge.streams.work import DetectedBatch, StreamWork

__all__ = [
    "DeadLetter",
    "Decoded",
    "DetectedBatch",
    "EdgeCaseEmitter",
    "ProjectedBatch",
    "Projector",
    "RawMessage",
    "Rejection",
    "StoreUnavailable",
    "StreamWork",
    "StreamsConfig",
    "decode_message",
    "rejected_from_headers",
]
