"""A rule's finding, its fingerprint, and the `EdgeCaseDetected` data it becomes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from schemas.events import EdgeCaseDetected

Severity = Literal["low", "medium", "high"]
FINGERPRINT_HEX = 32


def fingerprint(rule: str, features: Mapping[str, Any]) -> str:
    """Stable hash of a rule and what makes its case distinct (not the episode id, unless each
    episode is a case of its own: a write of unknown effect, `rules.episode_interrupted`)."""
    blob = json.dumps(
        {"rule": rule, "features": features}, sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:FINGERPRINT_HEX]


@dataclass(frozen=True)
class Finding:
    """One edge case a rule saw in one event."""

    rule: str
    """Rule name, e.g. `tool_failure.http_5xx`."""
    severity: Severity
    summary: str
    """One line for a reviewer."""
    tenant: str
    episode_id: str
    """Where it was seen (evidence, not identity)."""
    features: Mapping[str, Any]
    """What makes the case distinct; hashed, with the rule and tenant, into the fingerprint."""
    evidence: Mapping[str, Any] = field(default_factory=dict)
    event_ids: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        """Equal for every sighting of the same case, in any episode of the tenant."""
        return fingerprint(self.rule, {**self.features, "tenant": self.tenant})

    def to_data(self) -> EdgeCaseDetected:
        """The event data reporting this finding."""
        return EdgeCaseDetected(
            fingerprint=self.fingerprint,
            rule=self.rule,
            severity=self.severity,
            summary=self.summary[:500],
            source_episode_id=self.episode_id,
            event_ids=self.event_ids,
            evidence={**self.evidence, "features": dict(self.features)},
        )
