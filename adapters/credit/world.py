"""The deal system's state: the fund policy, packages by id, and what the deal team recorded.

`World` is immutable and JSON-snapshottable. Ids come from `counters` and dates from `today`,
never from the clock, so the sim and a live sandbox issue the same ids for the same calls.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import Field

from adapters.credit.errors import DomainError
from adapters.credit.models import CreditPackage, FundPolicy
from adapters.credit.records import IcEscalation, InformationRequest, Recommendation
from schemas.base import Contract

ID_PREFIX: dict[str, str] = {"recommendation": "REC-", "request": "INF-", "escalation": "IC-"}
"""Id prefix per kind of issued id; ids are prefix + a counter starting at 1."""


class World(Contract):
    """Everything the credit tools can read or change, at one point in time."""

    today: date
    """The world's current date; every date the tools write is this one."""
    policy: FundPolicy = Field(default_factory=FundPolicy)
    """The fund's underwriting policy."""
    packages: dict[str, CreditPackage] = Field(default_factory=dict)
    """Credit packages by id."""
    recommendations: dict[str, Recommendation] = Field(default_factory=dict)
    """Recorded recommendations by id."""
    requests: dict[str, InformationRequest] = Field(default_factory=dict)
    """Information requests by id."""
    escalations: dict[str, IcEscalation] = Field(default_factory=dict)
    """Escalations to investment committee by id."""
    counters: dict[str, int] = Field(default_factory=dict)
    """Last number issued per id kind."""

    def package(self, package_id: str) -> CreditPackage:
        """The package, or a refusal naming the known ones."""
        found = self.packages.get(package_id)
        if found is None:
            known = ", ".join(sorted(self.packages)[:10]) or "(none)"
            raise DomainError("unknown_package", f"no package {package_id!r}; known: {known}")
        return found

    def issue(self, kind: str) -> tuple[str, dict[str, int]]:
        """The next id of `kind` and the counters after issuing it."""
        number = self.counters.get(kind, 0) + 1
        return f"{ID_PREFIX[kind]}{number}", {**self.counters, kind: number}

    def snapshot(self) -> dict[str, Any]:
        """The world as JSON."""
        return self.model_dump(mode="json")

    @classmethod
    def from_snapshot(cls, state: dict[str, Any]) -> World:
        """The world from its JSON snapshot."""
        return cls.model_validate(state)
