"""Which `outcome.observed` kinds mean the work went well or badly, contributed by each domain.

A domain registers its kinds when its package is imported (`envs/rcm/__init__.py`,
`envs/credit/__init__.py`); a lookup for a built-in domain imports it first, so
`envs.verifiers.agreement.business_truth` judges an episode of any domain without naming one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from envs.domain import BUILTIN_DOMAINS


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


_KINDS: dict[str, OutcomeKinds] = {}


def register_outcome_kinds(domain: str, kinds: OutcomeKinds) -> None:
    """Declare `domain`'s good and bad outcome kinds (replacing any earlier declaration)."""
    _KINDS[domain] = kinds


def outcome_kinds(domain: str | None = None) -> OutcomeKinds:
    """`domain`'s outcome kinds; without a domain, every built-in domain's together."""
    for name, module in BUILTIN_DOMAINS.items():
        if (domain is None or name == domain) and name not in _KINDS:
            importlib.import_module(module)
    if domain is not None:
        return _KINDS.get(domain, OutcomeKinds(frozenset(), frozenset()))
    return OutcomeKinds(
        good=frozenset().union(*(k.good for k in _KINDS.values())),
        bad=frozenset().union(*(k.bad for k in _KINDS.values())),
        lasting=frozenset().union(*(k.lasting for k in _KINDS.values())),
    )
