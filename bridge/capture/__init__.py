"""Getting recorded events durably to Kafka: a SQLite outbox on the agent's machine and a relay.

    service = CaptureService.open(CaptureConfig(...))  # outbox, vault, relay of this process
    recorder = service.recorder(episode_id)            # bridge.recording: one per episode
    service.close()                                    # drain the relay on shutdown

docs/capture.md explains what "durable" means here and what it costs.
"""

from bridge.capture.config import CaptureConfig
from bridge.capture.delivery import DeliveryLog
from bridge.capture.outbox import Durability, OutboxClosed, OutboxInUse, SqliteOutbox
from bridge.capture.outbox_rows import DeliveryMark, OutboxRow
from bridge.capture.relay import KafkaRelay, ProcessRelay, RelayMetrics
from bridge.capture.service import CaptureService

__all__ = [
    "CaptureConfig",
    "CaptureService",
    "DeliveryLog",
    "DeliveryMark",
    "Durability",
    "KafkaRelay",
    "OutboxClosed",
    "OutboxInUse",
    "OutboxRow",
    "ProcessRelay",
    "RelayMetrics",
    "SqliteOutbox",
]
