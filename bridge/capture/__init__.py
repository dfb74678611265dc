"""Durable capture of every agent event: a SQLite outbox on the agent's machine, a relay to Kafka.

    service = CaptureService.open(CaptureConfig(...))       # outbox, vault, relay of this process
    recorder = service.recorder(episode_id)                 # one per episode; the runtime calls it
    recorder.tool_called(call, SideEffect.READ, ArgsModel)  # returns once the event is durable
    service.close()                                         # drain the relay on shutdown

PHI is tokenised before anything is recorded (bridge.phi). docs/capture.md explains the durability
semantics and what they cost.
"""

from bridge.capture.config import CaptureConfig
from bridge.capture.delivery import DeliveryLog
from bridge.capture.outbox import Durability, OutboxClosed, OutboxInUse, SqliteOutbox
from bridge.capture.outbox_rows import DeliveryMark, OutboxRow
from bridge.capture.outcome import record_outcome
from bridge.capture.recorder import EpisodeRecorder
from bridge.capture.relay import KafkaRelay, ProcessRelay
from bridge.capture.relay_report import RelayMetrics
from bridge.capture.service import CaptureService
from bridge.capture.sink import (
    GENESIS_HEAD,
    CaptureUnavailable,
    EventSink,
    InMemoryEventSink,
    StreamConflict,
    StreamHead,
    StreamStore,
    UnknownStream,
)

__all__ = [
    "GENESIS_HEAD",
    "CaptureConfig",
    "CaptureService",
    "CaptureUnavailable",
    "DeliveryLog",
    "DeliveryMark",
    "Durability",
    "EpisodeRecorder",
    "EventSink",
    "InMemoryEventSink",
    "KafkaRelay",
    "OutboxClosed",
    "OutboxInUse",
    "OutboxRow",
    "ProcessRelay",
    "RelayMetrics",
    "SqliteOutbox",
    "StreamConflict",
    "StreamHead",
    "StreamStore",
    "UnknownStream",
    "record_outcome",
]
