"""Which `outcome.observed` kinds mean the work went well or badly, as each domain's descriptor
states them (`DomainDescriptor.outcome_kinds`; `envs.verifiers.agreement.outcome_kinds` looks them
up), so `business_truth` judges an episode of any domain without naming one.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OutcomeKinds:
    """A domain's good and bad outcome kinds.

    The last good or bad kind in stream order decides an episode, except a `lasting` kind: once
    one is observed the episode is bad whatever follows (a covenant breach stays a breach after
    the next compliance certificate)."""

    good: frozenset[str]
    bad: frozenset[str]
    lasting: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        both = self.good & (self.bad | self.lasting)
        if both:
            raise ValueError(f"outcome kinds both good and bad: {', '.join(sorted(both))}")
        if not self.lasting <= self.bad:
            raise ValueError("a lasting outcome kind must also be a bad one")


NO_KINDS = OutcomeKinds(frozenset(), frozenset())
