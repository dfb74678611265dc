"""The Kafka topics every deployable agrees on: each name is defined here once (design.md §1)."""

EVENTS_TOPIC = "loopline.events.v1"
"""Every event, in CloudEvents binary mode: key = episode id, value = the data JSON, `ce_*` headers."""
DLQ_TOPIC = "loopline.dlq.v1"
"""Messages that could not be decoded or validated: the original bytes, the reason in headers."""
CHECKPOINTS_TOPIC = "loopline.checkpoints.v1"
"""Signed checkpoints of the stream heads (`bridge.audit.anchor`): JSON documents, off the archive's host."""
