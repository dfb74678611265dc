"""`EdgeCaseDetector`: runs every rule over an event and keeps the per-tool latency baselines."""

from __future__ import annotations

from collections.abc import Sequence

from bridge.detect.config import DetectConfig
from bridge.detect.context import EpisodeContext, Rejected, RuleContext
from bridge.detect.findings import Finding
from bridge.detect.latency import LatencyBaseline
from bridge.detect.rules import EVENT_RULES, Rule, dead_letter
from schemas.envelope import Event
from schemas.events import EdgeCaseDetected, OutcomeObserved, ToolFailed, ToolReturned


class EdgeCaseDetector:
    """Findings for each event; no I/O. The caller supplies episode context where it is needed."""

    def __init__(self, config: DetectConfig, rules: Sequence[Rule] = EVENT_RULES) -> None:
        self.config = config
        self.rules = tuple(rules)
        self.latency = LatencyBaseline(
            window=config.latency_window,
            percentile=config.latency_percentile,
            min_samples=config.latency_min_samples,
        )

    @staticmethod
    def needs_episode(event: Event) -> bool:
        """Whether `evaluate` wants the episode's context for this event (outcomes only)."""
        return isinstance(event.data, OutcomeObserved)

    def evaluate(self, event: Event, episode: EpisodeContext | None = None) -> list[Finding]:
        """Every finding of every rule for `event`; edge-case reports themselves are never judged."""
        data = event.data
        if isinstance(data, EdgeCaseDetected):
            return []
        baseline = None
        if isinstance(data, ToolReturned | ToolFailed):
            # Judge the call against the calls before it, then let it join the baseline.
            baseline = self.latency.baseline(data.name)
            self.latency.observe(data.name, data.latency_ms)
        ctx = RuleContext(self.config, episode, baseline)
        return [finding for rule in self.rules for finding in rule(event, ctx)]

    def evaluate_rejected(self, rejected: Rejected) -> list[Finding]:
        """The finding for a dead-lettered message."""
        return [dead_letter(rejected)]
