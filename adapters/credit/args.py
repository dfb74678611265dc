"""Tool argument models: the contract the model reads, so every field is described.

Optional arguments are `X | None = None` (OpenAI strict mode makes them required-but-nullable).
"""

from __future__ import annotations

from pydantic import Field

from adapters.credit.records import (
    Condition,
    Decision,
    EscalationReason,
    Figures,
    InformationItem,
)
from schemas.base import Contract


class PackageRef(Contract):
    """Arguments naming one credit package."""

    package_id: str = Field(min_length=1, max_length=64)
    """The package id, e.g. `PKG-1001`."""


class GetPackageArgs(PackageRef):
    """Arguments of `get_package`."""


class GetFinancialStatementsArgs(PackageRef):
    """Arguments of `get_financial_statements`."""

    period: str = Field(min_length=1, max_length=32)
    """Period label as `get_package` lists it, e.g. `FY2024` or `2025Q1`."""


class GetEbitdaBridgeArgs(PackageRef):
    """Arguments of `get_ebitda_bridge`."""


class GetTermSheetArgs(PackageRef):
    """Arguments of `get_term_sheet`."""


class GetExistingDebtArgs(PackageRef):
    """Arguments of `get_existing_debt`."""


class GetFundPolicyArgs(Contract):
    """Arguments of `get_fund_policy` (none)."""


class RecordRecommendationArgs(PackageRef):
    """Arguments of `record_recommendation`."""

    decision: Decision
    """Approve, approve with conditions, or decline."""
    figures: Figures
    """The figures the recommendation relies on, computed by you."""
    conditions: list[Condition] = Field(default_factory=list, max_length=10)
    """Conditions of an approval (required for approve_with_conditions, none otherwise)."""
    memo: str = Field(min_length=20, max_length=8000)
    """The credit memo: the figures relied on, the covenant headroom, and why."""


class RequestInformationArgs(PackageRef):
    """Arguments of `request_information`."""

    items: list[InformationItem] = Field(min_length=1, max_length=5)
    """What you need from the borrower."""
    message: str = Field(min_length=10, max_length=4000)
    """The request as the borrower will read it."""


class EscalateToCommitteeArgs(PackageRef):
    """Arguments of `escalate_to_committee`."""

    reasons: list[EscalationReason] = Field(min_length=1, max_length=7)
    """Why the investment committee must decide."""
    recommended_decision: Decision
    """What you recommend the committee decide."""
    figures: Figures
    """The figures you relied on."""
    memo: str = Field(min_length=20, max_length=8000)
    """The escalation memo: the figures, the covenant headroom, and what the committee must weigh."""
