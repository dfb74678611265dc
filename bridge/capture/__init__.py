"""Durable capture of every agent event: PHI tokenised at the boundary, a SQLite outbox, a Kafka relay.

    service = CaptureService.open(CaptureConfig(...))       # outbox + vault + relay of this process
    recorder = service.recorder(episode_id)                 # one per episode; the runtime calls it
    recorder.tool_called(call, SideEffect.READ, ArgsModel)  # returns once the event is durable
    service.close()                                         # drain the relay on shutdown

docs/capture.md explains the durability semantics and the measured costs.
"""

from bridge.capture.config import CaptureConfig
from bridge.capture.keys import PhiKeyError, PhiKeys, parse_master_key
from bridge.capture.outbox import Durability, OutboxClosed, OutboxInUse, SqliteOutbox
from bridge.capture.outbox_rows import DeliveryMark, OutboxRow
from bridge.capture.outcome import record_outcome
from bridge.capture.recorder import EpisodeRecorder
from bridge.capture.redactor import Redactor, SnapshotRedact
from bridge.capture.relay import KafkaRelay, RelaySource
from bridge.capture.relay_process import OutboxProxy, ProcessRelay, RemoteOutboxError
from bridge.capture.relay_report import RelayMetrics
from bridge.capture.service import CaptureService
from bridge.capture.sink import (
    GENESIS_HEAD,
    CaptureUnavailable,
    EventSink,
    InMemoryEventSink,
    StreamConflict,
    StreamHead,
    StreamHeads,
    StreamStore,
    UnknownStream,
)
from bridge.capture.tokenizer import PhiTokenizer, Unmodelled
from bridge.capture.vault import OPERATOR_ROLE, PhiVault, PhiVaultError, UnknownToken

__all__ = [
    "GENESIS_HEAD",
    "OPERATOR_ROLE",
    "CaptureConfig",
    "CaptureService",
    "CaptureUnavailable",
    "DeliveryMark",
    "Durability",
    "EpisodeRecorder",
    "EventSink",
    "InMemoryEventSink",
    "KafkaRelay",
    "OutboxClosed",
    "OutboxInUse",
    "OutboxProxy",
    "OutboxRow",
    "PhiKeyError",
    "PhiKeys",
    "PhiTokenizer",
    "PhiVault",
    "PhiVaultError",
    "ProcessRelay",
    "Redactor",
    "RelayMetrics",
    "RelaySource",
    "RemoteOutboxError",
    "SnapshotRedact",
    "SqliteOutbox",
    "StreamConflict",
    "StreamHead",
    "StreamHeads",
    "StreamStore",
    "UnknownStream",
    "UnknownToken",
    "Unmodelled",
    "parse_master_key",
    "record_outcome",
]
