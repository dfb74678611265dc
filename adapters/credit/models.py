"""The credit package a fund's deal team screens: borrower, sponsor, financial periods, the EBITDA
bridge, the proposed facility, existing debt, covenants, and the fund's policy.

Entities are immutable (`Contract` is frozen) and every collection is a tuple, so a world snapshot
shares every untouched entity with its successor. Money is in the currency the entity names; the
package's `fx_to_facility` converts any of them into the facility's currency.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from schemas.base import Contract

Currency = Literal["USD", "EUR", "GBP", "CAD"]
PeriodKind = Literal["FY", "Q"]
SourceFormat = Literal["workbook", "pdf_table"]
Seniority = Literal["senior_secured", "senior_unsecured", "subordinated"]
CovenantMetric = Literal[
    "max_total_leverage", "max_senior_leverage", "min_interest_coverage", "min_fccr", "min_liquidity"
]
AddBackCategory = Literal[
    "non_recurring",
    "restructuring",
    "owner_compensation",
    "projected_synergy",
    "recurring_cost",
    "equity_cure",
]
PackageStatus = Literal["open", "information_requested", "recommended", "escalated"]
ContractStatus = Literal["renewed", "notice_given", "in_negotiation"]
BreachKind = Literal["covenant_breach", "payment_default"]


class BreachRecord(Contract):
    """One event in a sponsor's breach history (its portfolio companies' loans)."""

    company: str
    """The portfolio company."""
    year: int
    """Year of the event."""
    kind: BreachKind
    """A failed covenant test, or a missed payment (a default)."""
    resolution: str
    """How it ended, in words (`amended for a fee`, `restructured`, `repaid in full`)."""
    lenders_repaid_in_full: bool
    """Whether the lenders got all their money back; a default with a loss to lenders counts as
    the sponsor's prior default."""


class CustomerContract(Contract):
    """The largest customer's contract, as the customer-contract answer delivers it."""

    customer: str
    """The customer."""
    status: ContractStatus
    """Renewed past the facility's maturity, notice of non-renewal given, or still being negotiated."""
    ends: date
    """When the contract ends (the renewed term's end once renewed)."""
    ebitda_contribution: float = Field(ge=0)
    """TTM EBITDA the customer contributes, in the borrower's reporting currency (what underwriting
    takes off when the customer has given notice)."""


class ComplianceCertificate(Contract):
    """The latest compliance certificate under an existing debt."""

    debt_id: str
    """The instrument it certifies."""
    period_end: date
    """Quarter end of the test."""
    outstanding: float = Field(ge=0)
    """Principal outstanding certified at the test date (the debt table's figure is replaced by it)."""
    passed: bool
    """Whether every covenant of the instrument passed."""
    waived: bool = False
    """Whether the lenders waived a failed test."""
    leverage_level: float | None = Field(default=None, gt=0)
    """The instrument's maximum total leverage covenant, as certified."""
    covenant_debt: float | None = Field(default=None, ge=0)
    """Debt the leverage test was computed on."""
    covenant_ebitda: float | None = None
    """EBITDA the leverage test was computed on."""
    cure_paid: float = Field(default=0.0, ge=0)
    """Sponsor equity paid in to cure a failed leverage test (counted as EBITDA for that test only)."""


class Sponsor(Contract):
    """The private-equity sponsor that owns the borrower."""

    sponsor_id: str
    """Sponsor id in the fund's deal system."""
    name: str
    """Sponsor name."""
    prior_default: bool = False
    """Whether a company this sponsor controlled has defaulted on a loan from this fund or its peers."""
    default_note: str | None = None
    """What the prior default was, when there was one."""
    record_on_file: bool = True
    """Whether the fund holds the sponsor's track record; a sponsor new to the fund is asked for
    its breach history before any decision."""
    breach_history: tuple[BreachRecord, ...] | None = None
    """The sponsor's breach history once delivered (empty: none); None: not received."""


class Borrower(Contract):
    """The company that would borrow."""

    borrower_id: str
    """Borrower id in the fund's deal system."""
    name: str
    """Legal name."""
    industry: str
    """Industry, in words."""
    reporting_currency: Currency
    """Currency the financial statements are reported in."""
    fiscal_year_end_month: int = Field(ge=1, le=12)
    """Month the current fiscal year ends in (1-12)."""
    largest_customer_share_pct: float = Field(ge=0, le=100)
    """Share of TTM revenue from the single largest customer, in percent."""
    largest_customer_contract_ends: date | None = None
    """When the largest customer's contract ends, as the package states it (None: not stated)."""
    largest_customer_contract: CustomerContract | None = None
    """The largest customer's contract once delivered (renewal, notice, negotiation)."""


class IncomeStatement(Contract):
    """Income statement of one period."""

    revenue: float
    """Net revenue."""
    ebitda: float
    """Reported EBITDA (before management add-backs)."""
    depreciation_amortisation: float
    """Depreciation and amortisation."""
    interest_expense: float
    """Interest expense booked in the period."""
    net_income: float
    """Net income."""


class BalanceSheet(Contract):
    """Balance sheet at the period's end."""

    cash: float
    """Cash and equivalents."""
    total_debt: float
    """Funded debt on the balance sheet."""
    total_equity: float
    """Shareholders' equity."""


class CashFlowStatement(Contract):
    """Cash-flow statement of one period."""

    capex: float = Field(ge=0)
    """Capital expenditure (a positive number is cash spent)."""
    cash_taxes: float = Field(ge=0)
    """Cash taxes paid."""
    change_in_working_capital: float
    """Increase in working capital (a positive number is cash absorbed)."""
    cash_interest: float = Field(ge=0)
    """Cash interest paid in the period."""


class FinancialPeriod(Contract):
    """One reporting period: a fiscal year or a quarter, as the borrower delivered it."""

    label: str
    """Period label, e.g. `FY2024` or `2025Q1`."""
    kind: PeriodKind
    """Fiscal year or quarter."""
    start: date
    """First day of the period."""
    end: date
    """Last day of the period."""
    months: int = Field(ge=1, le=15)
    """Length in months (a short stub year after a change of fiscal year end has fewer than 12)."""
    currency: Currency
    """Currency of every amount in the period."""
    source: SourceFormat = "workbook"
    """How the period arrived: an Excel workbook or a table taken from a PDF."""
    restated: bool = False
    """Whether these figures restate ones delivered earlier."""
    restated_on: date | None = None
    """When the restatement was issued."""
    original_ebitda: float | None = None
    """EBITDA as first reported, before the restatement."""
    income: IncomeStatement
    """Income statement."""
    balance: BalanceSheet
    """Balance sheet at `end`."""
    cash_flow: CashFlowStatement
    """Cash-flow statement."""


class AddBack(Contract):
    """One management adjustment in the EBITDA bridge."""

    addback_id: str
    """Id of the line in the bridge."""
    description: str
    """What management adds back, in its words."""
    category: AddBackCategory
    """Kind of adjustment."""
    amount: float
    """Amount added to EBITDA, in the bridge's currency."""
    supported: bool
    """Whether evidence (invoices, a quality-of-earnings report) supports it."""
    recurring: bool = False
    """Whether the cost recurs (a recurring cost is not an add-back)."""
    booked_in: tuple[str, ...] = ()
    """Earlier fiscal years whose bridge carried the same charge (labels, e.g. `FY2023`)."""
    support_amount: float | None = Field(default=None, ge=0)
    """The amount the supporting documents tie to; None when they tie to the whole amount."""


class EbitdaBridge(Contract):
    """Management's bridge from reported to adjusted EBITDA over the trailing twelve months."""

    currency: Currency
    """Currency of the bridge."""
    reported_ebitda: float
    """TTM EBITDA as reported."""
    addbacks: tuple[AddBack, ...] = ()
    """Management's add-backs."""
    management_adjusted_ebitda: float
    """Management's adjusted EBITDA (reported plus every add-back, accepted or not)."""


class Covenant(Contract):
    """A maintenance covenant on the term sheet, tested quarterly."""

    metric: CovenantMetric
    """What is tested; `max_` covenants cap the ratio, `min_` covenants floor it."""
    level: float = Field(gt=0)
    """Covenant level (a multiple, or an amount in the facility currency for liquidity)."""
    springing_utilisation_pct: float | None = Field(default=None, ge=0, le=100)
    """A springing covenant is tested only while the revolver is drawn above this percentage of its
    commitment; None: tested every quarter."""
    equity_cures: int = Field(default=0, ge=0, le=100)
    """Equity cures the sponsor may make over the facility's life (sponsor cash counted toward a
    failed test; never earnings for underwriting)."""


class Facility(Contract):
    """The facility the fund is asked to provide."""

    facility_id: str
    """Facility id."""
    kind: Literal["unitranche", "senior_term_loan", "delayed_draw_term_loan"]
    """Kind of loan."""
    amount: float = Field(gt=0)
    """Principal amount."""
    currency: Currency
    """Currency of the loan; every ratio is computed in it."""
    tenor_years: float = Field(gt=0, le=10)
    """Tenor in years."""
    all_in_rate_pct: float = Field(gt=0, le=30)
    """Cash interest rate, base rate plus margin, in percent a year."""
    amortisation_pct: float = Field(ge=0, le=100)
    """Scheduled principal a year, in percent of the amount."""
    revolver_commitment: float = Field(default=0.0, ge=0)
    """Committed revolving facility alongside the loan."""
    revolver_drawn: float = Field(default=0.0, ge=0)
    """Revolver drawn at closing."""


class TermSheet(Contract):
    """The proposed terms."""

    facility: Facility
    """The facility."""
    covenants: tuple[Covenant, ...] = ()
    """Maintenance covenants; none at all is covenant-lite."""
    covenant_lite: bool = False
    """Whether the terms carry no maintenance covenant."""
    equity_contribution_pct: float = Field(ge=0, le=100)
    """Sponsor equity as a percentage of total sources."""
    collateral: str
    """What secures the facility, in words."""


class ExistingDebt(Contract):
    """A debt the borrower already carries."""

    debt_id: str
    """Id of the instrument."""
    lender: str
    """Who holds it."""
    seniority: Seniority
    """Ranking."""
    outstanding: float = Field(ge=0)
    """Principal outstanding."""
    currency: Currency
    """Currency of the debt."""
    rate_pct: float = Field(ge=0, le=30)
    """Cash interest rate, percent a year."""
    annual_principal: float = Field(ge=0)
    """Scheduled principal a year."""
    refinanced: bool = False
    """Whether the proposed facility repays it at closing."""
    maintenance_covenants: bool = False
    """Whether the instrument carries maintenance covenants its lender tests each quarter."""
    certificate: ComplianceCertificate | None = None
    """Its latest compliance certificate once delivered."""
    max_cure_amount: float | None = Field(default=None, ge=0)
    """The most one equity cure may count under the instrument's documents (None: no cure right)."""


class FundPolicy(Contract):
    """The fund's underwriting policy: the thresholds that decide the decision class."""

    target_total_leverage: float = 5.0
    """Total leverage above this needs a condition (lower amount)."""
    escalate_total_leverage: float = 6.0
    """Total leverage above this goes to investment committee."""
    decline_total_leverage: float = 7.5
    """Total leverage above this is declined."""
    decline_interest_coverage: float = 1.5
    """Interest coverage below this is declined."""
    min_fccr: float = 1.2
    """Fixed-charge coverage below this needs more equity."""
    min_headroom_pct: float = 15.0
    """Covenant headroom under this percentage goes to investment committee."""
    min_headroom_by_metric: dict[str, float] = Field(default_factory=dict)
    """Per-covenant floors (by metric) that replace `min_headroom_pct` for that covenant."""
    addback_cap_pct: float = 20.0
    """Projected synergies are accepted up to this percentage of reported EBITDA."""
    max_customer_share_pct: float = 30.0
    """A single customer above this share of revenue needs a concentration condition or IC."""
    max_equity_cures: int = Field(default=4, ge=0, le=100)
    """Most equity cures a covenant may allow over the facility's life; more needs a tighter
    covenant package (a cure limit) before approval."""
    recurrence_years: int = 2
    """An add-back booked in this many earlier fiscal years is recurring, whatever it is called."""
    reporting_lag_days: int = 45
    """Days after a quarter's end its accounts are due; a TTM ending more than a quarter plus this
    before the decision date is stale."""
    restatement_lookback_years: int = 2
    """A restatement issued within this many years needs information before any decision."""
    ratio_tolerance_pct: float = 2.0
    """Tolerance on a recorded ratio or amount, in percent of the right figure."""
    headroom_tolerance_pts: float = 2.0
    """Tolerance on recorded covenant headroom, in percentage points."""


class Flow(Contract):
    """One line of a sources-and-uses table."""

    label: str
    """What the line is, in words (`Unitranche`, `Sponsor equity`, `Repay Regional Bank loan`)."""
    amount: float = Field(ge=0)
    """Amount, in the facility currency."""
    debt_id: str | None = None
    """The existing debt a use repays, when it repays one."""


class SourcesAndUses(Contract):
    """Where the money at closing comes from and where it goes."""

    sources: tuple[Flow, ...]
    """Sources of funds: the facility, sponsor equity, cash on hand."""
    uses: tuple[Flow, ...]
    """Uses of funds: debt repaid (with its `debt_id`), purchase price, fees."""


class BorrowerAnswer(Contract):
    """What the borrower can supply when the deal team asks for one item."""

    item: str
    """Information item (see `InformationItem`)."""
    available: bool
    """Whether the borrower supplies it now; otherwise it is to follow."""
    text: str
    """The borrower's answer."""
    period: FinancialPeriod | None = None
    """A period the answer delivers (a missing quarter, the latest quarter), or a restated one that
    replaces the period of its label (a quality-of-earnings report that restates a quarter)."""
    addbacks: tuple[AddBack, ...] = ()
    """Bridge lines the answer restates (a quality-of-earnings report), replacing those of the same id."""
    sources_and_uses: SourcesAndUses | None = None
    """The sources-and-uses table the answer delivers."""
    certificates: tuple[ComplianceCertificate, ...] = ()
    """Compliance certificates under existing debt (each replaces its debt's outstanding)."""
    breach_history: tuple[BreachRecord, ...] | None = None
    """The sponsor's breach history the answer delivers (empty: none)."""
    customer_contract: CustomerContract | None = None
    """The largest customer's contract the answer delivers."""


class CreditPackage(Contract):
    """Everything the deal team received for one credit request."""

    package_id: str
    """Package id, e.g. `PKG-1001`."""
    received: date
    """When the package arrived."""
    borrower: Borrower
    """The borrower."""
    sponsor: Sponsor
    """The sponsor."""
    periods: tuple[FinancialPeriod, ...]
    """Fiscal years and quarters as delivered; a quarter may be missing."""
    bridge: EbitdaBridge
    """Management's TTM EBITDA bridge."""
    term_sheet: TermSheet
    """The proposed terms."""
    existing_debt: tuple[ExistingDebt, ...] = ()
    """Debt the borrower already carries."""
    fx_to_facility: dict[str, float] = Field(default_factory=dict)
    """Rate converting one unit of each currency into the facility currency."""
    sources_and_uses: SourcesAndUses | None = None
    """Sources and uses at closing, when the package has them."""
    answers: tuple[BorrowerAnswer, ...] = ()
    """What the borrower would answer to each information item (hidden until requested)."""
    status: PackageStatus = "open"
    """Where the package stands."""
    received_answers: tuple[str, ...] = ()
    """The borrower's answers received so far, in order."""
