"""The Kafka topics every deployable agrees on: each name is defined here once (design.md §1)."""

EVENTS_TOPIC = "loopline.events.v1"
"""Every event, in CloudEvents binary mode: key = episode id, value = the data JSON, `ce_*` headers."""
DLQ_TOPIC = "loopline.dlq.v1"
"""Messages that could not be decoded or validated: the original bytes, the reason in headers."""
CHECKPOINTS_TOPIC = "loopline.checkpoints.v1"
"""Signed checkpoints of the stream heads (`bridge.audit.anchor`): JSON documents, off the archive's host."""


def checkpoints_topic_of(events_topic: str) -> str:
    """The checkpoint topic beside `events_topic` (`x.events.v1` → `x.checkpoints.v1`; the default
    events topic's is `CHECKPOINTS_TOPIC`), where the detector anchors its checkpoints and the audit
    reads them unless told another."""
    if ".events." in events_topic:
        return events_topic.replace(".events.", ".checkpoints.", 1)
    return f"{events_topic}.checkpoints"
