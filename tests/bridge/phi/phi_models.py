"""Models with PHI-marked fields, shaped like the payloads, arguments and results of a billing domain."""

from __future__ import annotations

from pydantic import BaseModel, Field

from schemas.phi import phi_field


class Address(BaseModel):
    street: str = phi_field(description="Street line.")
    city: str
    zip_code: str = phi_field(description="ZIP code.")


class Patient(BaseModel):
    name: str = phi_field(description="Full name.")
    member_id: str = phi_field(description="Payer member id.")
    birth_year: int = phi_field(description="Year of birth.")
    address: Address | None = None
    plan: str = "PPO"


class ClaimPayload(BaseModel):
    claim_id: str
    amount: float
    patient: Patient
    dependants: list[Patient] = Field(default_factory=list)
    contacts: dict[str, Address] = Field(default_factory=dict)
    guarantor: Patient | None = phi_field(default=None, description="Whole record is PHI.")
    denial_codes: tuple[str, ...] = ()


class LookupArgs(BaseModel):
    claim_id: str
    member_id: str = phi_field(description="Payer member id.")


class LookupResult(BaseModel):
    claim_id: str
    status: str
    patient_name: str = phi_field(description="Name on the claim.")
    ssn_last4: str | None = phi_field(default=None, description="Last four SSN digits.")


class NoPhi(BaseModel):
    claim_id: str
    status: str


class TreeNode(BaseModel):
    label: str = phi_field(description="A name.")
    children: list[TreeNode] = Field(default_factory=list)


class AliasedArgs(BaseModel):
    member: str = phi_field(alias="memberId", description="Payer member id.")
    claim: str = Field(alias="claimId")


class WorldState(BaseModel):
    patients: dict[str, Patient]
    open_claims: list[str]


RAW_PHI = ("Ada Lovelace", "MBR-0042", "12 Crescent Rd", "90210", "Grace Hopper", "MBR-0077", "123-45")
"""Every PHI string the fixtures below contain; none may appear in a produced event."""


def claim_payload() -> dict[str, object]:
    return {
        "claim_id": "CLM-1",
        "amount": 125.5,
        "patient": {
            "name": "Ada Lovelace",
            "member_id": "MBR-0042",
            "birth_year": 1815,
            "address": {"street": "12 Crescent Rd", "city": "London", "zip_code": "90210"},
            "plan": "HMO",
        },
        "dependants": [{"name": "Grace Hopper", "member_id": "MBR-0077", "birth_year": 1906}],
        "contacts": {"home": {"street": "12 Crescent Rd", "city": "London", "zip_code": "90210"}},
        "guarantor": {"name": "Grace Hopper", "member_id": "MBR-0077", "birth_year": 1906},
        "denial_codes": ["CO-97"],
    }
