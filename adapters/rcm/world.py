"""The world state: every entity and record, keyed by id, plus the date and the id counters.

`World` is immutable and JSON-snapshottable (`model_dump(mode="json")` / `model_validate`). The
domain logic derives a new world through a `Change`, which copies only the collections it touches;
untouched entities are shared, so keeping the previous world as a checkpoint costs nothing.
Ids come from `counters` and dates from `today`, never from the clock, so the sim and the sandbox
issue the same ids for the same calls.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import Field

from adapters.rcm.errors import DomainError
from adapters.rcm.models import Claim, Coverage, Document, Patient, Payer, Practice, Provider, Remittance
from adapters.rcm.payers import Bulletin
from adapters.rcm.records import (
    Appeal,
    Authorization,
    Escalation,
    PatientTransfer,
    Violation,
    WriteOff,
)
from schemas.base import Contract

Collection = Literal[
    "payers",
    "providers",
    "patients",
    "coverages",
    "claims",
    "remittances",
    "documents",
    "authorizations",
    "appeals",
    "write_offs",
    "patient_transfers",
    "escalations",
    "bulletins",
]

# Id prefixes per kind of issued id; the counter for each starts at 0 and ids are prefix + number.
ID_PREFIX: dict[str, str] = {
    "claim": "CLM-R",
    "pcn": "PCN",
    "auth": "AUTH-",
    "auth_number": "PA",
    "appeal": "APL-",
    "write_off": "WO-",
    "transfer": "PT-",
    "escalation": "ESC-",
}


class World(Contract):
    """Everything the RCM tools can read or change, at one point in time."""

    today: date
    """The world's current date; every date the tools write is this one."""
    practice: Practice
    """The billing practice and its internal policy."""
    payers: dict[str, Payer] = Field(default_factory=dict)
    """Payers by payer id."""
    providers: dict[str, Provider] = Field(default_factory=dict)
    """Providers by NPI."""
    patients: dict[str, Patient] = Field(default_factory=dict)
    """Patients by patient id."""
    coverages: dict[str, Coverage] = Field(default_factory=dict)
    """Insurance coverages by coverage id."""
    claims: dict[str, Claim] = Field(default_factory=dict)
    """Claims by claim id, including replacements and claims sent to other payers."""
    remittances: dict[str, Remittance] = Field(default_factory=dict)
    """835 claim payments by remittance id."""
    documents: dict[str, Document] = Field(default_factory=dict)
    """Documents by document id."""
    authorizations: dict[str, Authorization] = Field(default_factory=dict)
    """Authorization requests and decisions by auth id (on file, and requested by the agent)."""
    appeals: dict[str, Appeal] = Field(default_factory=dict)
    """Appeals filed, by appeal id."""
    write_offs: dict[str, WriteOff] = Field(default_factory=dict)
    """Write-offs posted, by id."""
    patient_transfers: dict[str, PatientTransfer] = Field(default_factory=dict)
    """Amounts transferred to patient responsibility, by id."""
    escalations: dict[str, Escalation] = Field(default_factory=dict)
    """Hand-offs to human queues, by id."""
    bulletins: dict[str, Bulletin] = Field(default_factory=dict)
    """Payer bulletins announcing rule changes, by id (pending ones have no published date)."""
    violations: tuple[Violation, ...] = ()
    """Compliance breaches recorded by the system, in order."""
    counters: dict[str, int] = Field(default_factory=dict)
    """Last number issued per id kind (see `ID_PREFIX`)."""

    def snapshot(self) -> dict[str, Any]:
        """The world as JSON."""
        return self.model_dump(mode="json")

    @classmethod
    def from_snapshot(cls, state: dict[str, Any]) -> World:
        """Rebuild a world from `snapshot()` output."""
        return cls.model_validate(state)

    # Lookups that refuse unknown ids with the message the agent sees.

    def claim(self, claim_id: str) -> Claim:
        found = self.claims.get(claim_id)
        if found is None:
            raise DomainError("unknown_claim", f"no claim {claim_id!r} on file")
        return found

    def payer(self, payer_id: str) -> Payer:
        found = self.payers.get(payer_id)
        if found is None:
            known = ", ".join(sorted(self.payers))
            raise DomainError("unknown_payer", f"no payer {payer_id!r}; known payers: {known}")
        return found

    def patient(self, patient_id: str) -> Patient:
        found = self.patients.get(patient_id)
        if found is None:
            raise DomainError("unknown_patient", f"no patient {patient_id!r} on file")
        return found

    def document(self, document_id: str) -> Document:
        found = self.documents.get(document_id)
        if found is None:
            raise DomainError("unknown_document", f"no document {document_id!r} on file")
        return found

    def remittances_for(self, claim_id: str) -> list[Remittance]:
        """The claim's remittances, oldest first (production date, then id)."""
        found = [r for r in self.remittances.values() if r.claim_id == claim_id]
        found.sort(key=lambda r: (r.production_date, r.remittance_id))
        return found

    def latest_remittance(self, claim_id: str) -> Remittance | None:
        found = self.remittances_for(claim_id)
        return found[-1] if found else None


class Change:
    """Builds the successor of a world: copies a collection on first write, shares the rest.

    Logic functions validate everything first and only then write, so a refusal never leaves a
    half-applied change (and the input world is never touched at all).
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self._updates: dict[str, Any] = {}

    def put(self, collection: Collection, key: str, entity: Any) -> None:
        table = self._updates.get(collection)
        if table is None:
            table = dict(getattr(self.world, collection))
            self._updates[collection] = table
        table[key] = entity

    def issue(self, kind: str) -> str:
        """A fresh id of `kind`, from the world's counters (skipping ids already taken)."""
        counters: dict[str, int] = self._updates.setdefault("counters", dict(self.world.counters))
        while True:
            counters[kind] = counters.get(kind, 0) + 1
            candidate = f"{ID_PREFIX[kind]}{counters[kind]:05d}"
            if not self._taken(kind, candidate):
                return candidate

    def add_violation(self, violation: Violation) -> None:
        current: tuple[Violation, ...] = self._updates.get("violations", self.world.violations)
        self._updates["violations"] = (*current, violation)

    def commit(self) -> World:
        if not self._updates:
            return self.world
        return self.world.model_copy(update=self._updates)

    def _taken(self, kind: str, candidate: str) -> bool:
        # Seed worlds use their own ids; a generated id must never collide with one of them.
        table = {
            "claim": "claims",
            "auth": "authorizations",
            "appeal": "appeals",
            "write_off": "write_offs",
            "transfer": "patient_transfers",
            "escalation": "escalations",
        }.get(kind)
        if table is None:
            return False
        current = self._updates.get(table, getattr(self.world, table))
        return candidate in current
