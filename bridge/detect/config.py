"""What the edge-case rules consider normal; `loopline` builds this from its settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_ADVERSE_OUTCOMES = frozenset(
    {"denied", "denied_again", "appeal_denied", "appeal_lost", "rejected", "covenant_breach", "default"}
)


class DetectConfig(BaseModel):
    """Thresholds and vocabularies of the edge-case rules."""

    model_config = ConfigDict(frozen=True)

    known_vocabulary: dict[str, frozenset[str]] = Field(
        default_factory=dict,
        description="Field name (case-insensitive) → the values training tasks contain, e.g. "
        "{'carc': {'16', '45', ...}, 'group_code': {'CO', 'PR', 'OA', 'PI'}}. A value outside its set, "
        "anywhere in a work item, tool result or outcome, is an edge case.",
    )
    latency_threshold_ms: float = Field(
        default=30_000.0, gt=0, description="A call slower than this is unusual."
    )
    latency_percentile: float = Field(
        default=0.99,
        gt=0.5,
        lt=1.0,
        description="A call slower than this percentile of its tool's recent calls is unusual.",
    )
    latency_factor: float = Field(
        default=2.0,
        ge=1.0,
        description="How many times its percentile a call must take to be unusual; "
        "1.0 flags every new maximum of a small sample, which is noise.",
    )
    latency_window: int = Field(
        default=500, ge=10, description="Recent calls per tool the percentile is taken over."
    )
    latency_min_samples: int = Field(
        default=50, ge=5, description="Calls of a tool needed before its percentile counts."
    )
    adverse_outcomes: frozenset[str] = Field(
        default=DEFAULT_ADVERSE_OUTCOMES, description="Outcome kinds that contradict a resolved episode."
    )
    resolved_statuses: frozenset[str] = Field(
        default=frozenset({"completed"}), description="Episode statuses that claim the item was resolved."
    )
    override_actions: frozenset[str] = Field(
        default=frozenset({"override", "takeover"}), description="Human actions that overrule the agent."
    )

    @field_validator("known_vocabulary")
    @classmethod
    def _lower_keys(cls, value: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        return {key.lower(): frozenset(str(v) for v in values) for key, values in value.items()}
