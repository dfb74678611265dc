"""What the deal team writes: figures, recommendations with conditions, information requests and
escalations to investment committee."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from adapters.credit.models import CovenantMetric
from schemas.base import Contract

Decision = Literal["approve", "approve_with_conditions", "decline"]
DecisionClass = Literal["approve", "approve_with_conditions", "decline", "request_information", "escalate"]
ConditionKind = Literal[
    "lower_amount",
    "tighter_covenant",
    "more_equity",
    "currency_hedge",
    "concentration_limit",
]
InformationItem = Literal[
    "restatement_reconciliation",
    "missing_quarter",
    "addback_support",
    "customer_contracts",
    "fiscal_year_bridge",
    "sources_and_uses",
    "latest_quarter",
    "quality_of_earnings",
    "compliance_certificates",
    "breach_history",
]
EscalationReason = Literal[
    "leverage_above_policy",
    "thin_covenant_headroom",
    "sponsor_prior_default",
    "covenant_lite",
    "customer_concentration",
    "non_positive_ebitda",
    "addback_dependent_earnings",
    "other",
]


class CovenantHeadroom(Contract):
    """Distance of one ratio from its covenant level."""

    metric: CovenantMetric
    """The covenant tested."""
    headroom_pct: float = Field(ge=-1e6, le=1e6)
    """(level - actual) / level for a maximum, (actual - level) / level for a minimum, in percent."""


class Figures(Contract):
    """The figures a recommendation relies on, TTM and pro forma for the facility, in its currency."""

    adjusted_ebitda: float = Field(ge=-1e12, le=1e12)
    """Reported TTM EBITDA plus the accepted add-backs."""
    total_leverage: float = Field(ge=-1000, le=1000)
    """Total debt after closing (facility, drawn revolver, existing debt not refinanced) / adjusted
    EBITDA; 99.0 when adjusted EBITDA is zero or negative."""
    senior_leverage: float = Field(ge=-1000, le=1000)
    """Senior debt after closing / adjusted EBITDA."""
    interest_coverage: float = Field(ge=-1000, le=1000)
    """Adjusted EBITDA / pro forma cash interest (facility and drawn revolver at the all-in rate,
    existing debt not refinanced at its rate)."""
    fixed_charge_coverage: float = Field(ge=-1000, le=1000)
    """(Adjusted EBITDA - TTM capex - TTM cash taxes) / (pro forma cash interest + scheduled
    principal a year: facility amortisation plus existing debt's annual principal)."""
    dscr: float = Field(ge=-1000, le=1000)
    """(Adjusted EBITDA - capex - cash taxes - working-capital increase) / debt service."""
    liquidity: float = Field(ge=-1e12, le=1e12)
    """Cash at the latest quarter end plus the undrawn revolver."""
    covenant_headroom: tuple[CovenantHeadroom, ...] = ()
    """Headroom against each covenant on the term sheet."""


class Condition(Contract):
    """A condition attached to an approval."""

    kind: ConditionKind
    """What the condition asks for."""
    detail: str = Field(min_length=5, max_length=1000)
    """The condition in words."""
    value: float | None = Field(default=None, ge=0, le=1e12)
    """The number it sets, where it sets one (the lower amount, the tighter level, the equity %)."""


class Recommendation(Contract):
    """A recorded recommendation for the package."""

    recommendation_id: str
    """Id the deal system issued."""
    package_id: str
    """The package."""
    decision: Decision
    """Approve, approve with conditions, or decline."""
    figures: Figures
    """The figures relied on."""
    conditions: tuple[Condition, ...] = ()
    """Conditions of an approval."""
    memo: str
    """The credit memo."""
    recorded_on: date
    """Date recorded."""


class InformationRequest(Contract):
    """A request to the borrower for missing or doubtful information."""

    request_id: str
    """Id the deal system issued."""
    package_id: str
    """The package."""
    items: tuple[InformationItem, ...]
    """What was asked for."""
    message: str
    """The request as sent."""
    requested_on: date
    """Date sent."""


class IcEscalation(Contract):
    """A hand-off to the fund's investment committee."""

    escalation_id: str
    """Id the deal system issued."""
    package_id: str
    """The package."""
    reasons: tuple[EscalationReason, ...]
    """Why the committee must decide."""
    recommended_decision: Decision
    """What the analyst recommends the committee decide."""
    figures: Figures
    """The figures relied on."""
    memo: str
    """The escalation memo."""
    escalated_on: date
    """Date escalated."""
