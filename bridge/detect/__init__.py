"""Edge-case rules over events: pure functions, a deduplicator and a rolling latency baseline.

`EdgeCaseDetector.evaluate(event, episode_context)` returns `Finding`s; each becomes an
`EdgeCaseDetected` with a stable fingerprint (`Finding.to_data`). `Deduplicator` reports each
fingerprint once per window. The streaming app (`bridge.streams`) does the I/O around them.
"""

from bridge.detect.config import DetectConfig
from bridge.detect.context import EpisodeContext, Rejected, RuleContext
from bridge.detect.dedup import Deduplicator
from bridge.detect.engine import EdgeCaseDetector
from bridge.detect.findings import Finding, fingerprint
from bridge.detect.rules import EVENT_RULES, Rule

__all__ = [
    "EVENT_RULES",
    "Deduplicator",
    "DetectConfig",
    "EdgeCaseDetector",
    "EpisodeContext",
    "Finding",
    "Rejected",
    "Rule",
    "RuleContext",
    "fingerprint",
]
