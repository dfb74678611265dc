"""Tool result models: what the agent reads back. Both backends return exactly these models."""

from __future__ import annotations

from adapters.credit.models import (
    Borrower,
    EbitdaBridge,
    ExistingDebt,
    FinancialPeriod,
    FundPolicy,
    PackageStatus,
    PeriodKind,
    SourcesAndUses,
    Sponsor,
    TermSheet,
)
from adapters.credit.records import IcEscalation, InformationRequest, Recommendation
from schemas.base import Contract


class PeriodSummary(Contract):
    """One period the package holds, without its figures."""

    label: str
    """Period label to pass to `get_financial_statements`."""
    kind: PeriodKind
    """Fiscal year or quarter."""
    start: str
    """First day (ISO date)."""
    end: str
    """Last day (ISO date)."""
    months: int
    """Length in months."""
    restated: bool
    """Whether the figures restate earlier ones."""


class PackageResult(Contract):
    """The package overview: who borrows, who owns them, what periods arrived, where it stands."""

    package_id: str
    """The package."""
    received: str
    """When it arrived (ISO date)."""
    borrower: Borrower
    """The borrower."""
    sponsor: Sponsor
    """The sponsor."""
    periods: list[PeriodSummary]
    """Periods delivered, oldest first."""
    fx_to_facility: dict[str, float]
    """Rate converting one unit of each currency into the facility currency."""
    status: PackageStatus
    """Where the package stands."""
    answers_received: list[str]
    """Borrower answers already received (their text), in order."""


class FinancialStatementsResult(Contract):
    """One period's income statement, balance sheet and cash flow."""

    package_id: str
    """The package."""
    period: FinancialPeriod
    """The period."""


class EbitdaBridgeResult(Contract):
    """Management's TTM EBITDA bridge."""

    package_id: str
    """The package."""
    bridge: EbitdaBridge
    """The bridge."""


class TermSheetResult(Contract):
    """The proposed facility and covenants."""

    package_id: str
    """The package."""
    term_sheet: TermSheet
    """The term sheet."""


class ExistingDebtResult(Contract):
    """Debt the borrower already carries."""

    package_id: str
    """The package."""
    debts: list[ExistingDebt]
    """Each instrument."""
    sources_and_uses: SourcesAndUses | None = None
    """Sources and uses at closing (what retires the debt flagged refinanced), when the package has them."""


class FundPolicyResult(Contract):
    """The fund's underwriting policy."""

    policy: FundPolicy
    """Thresholds that decide the decision class."""
    rules: list[str]
    """The policy's rules in words, in the order they apply."""


class RecommendationResult(Contract):
    """A recorded recommendation."""

    recommendation: Recommendation
    """The record."""


class InformationRequestResult(Contract):
    """A sent information request and what the borrower answered at once."""

    request: InformationRequest
    """The request."""
    answers: list[str]
    """The borrower's answer to each item (delivered, or to follow)."""
    delivered_periods: list[str]
    """Labels of periods the answers added to the package."""
    outstanding: list[str]
    """Items the borrower could not supply yet (to follow)."""


class EscalationResult(Contract):
    """A hand-off to investment committee."""

    escalation: IcEscalation
    """The escalation record."""
