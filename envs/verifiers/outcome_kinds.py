"""Which `outcome.observed` kinds mean the work went well or badly, as each domain's descriptor
states them, so `envs.verifiers.agreement.business_truth` judges an episode of any domain without
naming one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envs.domain import DOMAINS


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


def outcome_kinds(domain: str | None = None) -> OutcomeKinds:
    """`domain`'s outcome kinds; without a domain, every domain's together."""
    if domain is not None:
        if domain not in DOMAINS.names():
            return NO_KINDS
        return DOMAINS.get(domain).outcome_kinds or NO_KINDS
    kinds = [d.outcome_kinds for d in DOMAINS.all() if d.outcome_kinds is not None]
    return OutcomeKinds(
        good=frozenset().union(*(k.good for k in kinds)),
        bad=frozenset().union(*(k.bad for k in kinds)),
        lasting=frozenset().union(*(k.lasting for k in kinds)),
    )
