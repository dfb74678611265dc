"""Hand-written packages: round numbers an expert can check with a pencil.

`Hand` holds the numbers of one case; the defaults are the reference package of the expert set:
four quarters of USD 2.5m EBITDA (TTM 10.0m), a supported one-off add-back of 1.0m and a recurring
0.3m one (adjusted EBITDA 11.0m), a USD 44.0m facility at 10% with 1% amortisation, a 5.0m undrawn
revolver, cash of 3.0m, covenants at 5.0x total leverage and 2.0x interest coverage. Each case
changes what its rule needs and states the figures that follow, by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from adapters.credit.models import (
    AddBack,
    BalanceSheet,
    Borrower,
    BorrowerAnswer,
    CashFlowStatement,
    Covenant,
    CovenantMetric,
    CreditPackage,
    Currency,
    EbitdaBridge,
    ExistingDebt,
    Facility,
    FinancialPeriod,
    IncomeStatement,
    SourcesAndUses,
    Sponsor,
    TermSheet,
)

M = 1_000_000.0
QUARTERS = (
    ("2024Q2", date(2024, 4, 1), date(2024, 6, 30)),
    ("2024Q3", date(2024, 7, 1), date(2024, 9, 30)),
    ("2024Q4", date(2024, 10, 1), date(2024, 12, 31)),
    ("2025Q1", date(2025, 1, 1), date(2025, 3, 31)),
)
LEGAL = AddBack(
    addback_id="AB-1",
    description="One-off legal settlement",
    category="non_recurring",
    amount=1.0 * M,
    supported=True,
)
TRADE_SHOW = AddBack(
    addback_id="AB-2",
    description="Annual trade-show costs",
    category="recurring_cost",
    amount=0.3 * M,
    supported=True,
    recurring=True,
)


@dataclass(frozen=True)
class Hand:
    """The hand-written numbers of one package (amounts in `currency`)."""

    q_ebitda: tuple[float, ...] = (2.5 * M,) * 4
    q_capex: float = 0.25 * M
    q_taxes: float = 0.125 * M
    q_wc: float = 0.05 * M
    cash: float = 3.0 * M
    currency: Currency = "USD"
    fx: float | None = None
    addbacks: tuple[AddBack, ...] = (LEGAL, TRADE_SHOW)
    facility: float = 44.0 * M
    rate: float = 10.0
    amort: float = 1.0
    revolver: float = 5.0 * M
    drawn: float = 0.0
    debts: tuple[ExistingDebt, ...] = ()
    covenants: tuple[tuple[CovenantMetric, float], ...] = (
        ("max_total_leverage", 5.0),
        ("min_interest_coverage", 2.0),
    )
    customer_share: float = 12.0
    customer_contract_ends: date | None = None
    """When the largest customer's contract ends, as the package states it."""
    prior_default: bool = False
    record_on_file: bool = True
    """Whether the fund holds the sponsor's track record (else its breach history is asked for)."""
    restated: tuple[int, date, float] | None = None
    """(quarter index, restated on, EBITDA as first reported)."""
    drop_quarter: int | None = None
    fy_stub: bool = False
    answers: tuple[BorrowerAnswer, ...] = field(default=())
    sources_and_uses: SourcesAndUses | None = None
    springing: tuple[tuple[CovenantMetric, float], ...] = ()
    """Covenants that spring: (metric, revolver utilisation % above which they are tested)."""
    cures: tuple[tuple[CovenantMetric, int], ...] = ()
    """Equity cures a covenant allows over the facility's life: (metric, count)."""


def _quarter(h: Hand, i: int) -> FinancialPeriod:
    label, start, end = QUARTERS[i]
    ebitda = h.q_ebitda[i]
    restated = h.restated is not None and h.restated[0] == i
    return FinancialPeriod(
        label=label,
        kind="Q",
        start=start,
        end=end,
        months=3,
        currency=h.currency,
        restated=restated,
        restated_on=h.restated[1] if h.restated and restated else None,
        original_ebitda=h.restated[2] if h.restated and restated else None,
        income=IncomeStatement(
            revenue=ebitda * 5,
            ebitda=ebitda,
            depreciation_amortisation=0.6 * M,
            interest_expense=0.3 * M,
            net_income=ebitda - 1.0 * M,
        ),
        balance=BalanceSheet(cash=h.cash, total_debt=20.0 * M, total_equity=30.0 * M),
        cash_flow=CashFlowStatement(
            capex=h.q_capex, cash_taxes=h.q_taxes, change_in_working_capital=h.q_wc, cash_interest=0.3 * M
        ),
    )


def quarter(h: Hand, i: int) -> FinancialPeriod:
    """Quarter `i` (0 = 2024Q2 ... 3 = 2025Q1) of the hand package."""
    return _quarter(h, i)


def _year(h: Hand, year: int, months: int = 12) -> FinancialPeriod:
    scale = months / 12 * (0.9 if year < 2024 else 1.0)
    start = date(year, 13 - months, 1) if months < 12 else date(year, 1, 1)
    return FinancialPeriod(
        label=f"FY{year}",
        kind="FY",
        start=start,
        end=date(year, 12, 31),
        months=months,
        currency=h.currency,
        income=IncomeStatement(
            revenue=48.0 * M * scale,
            ebitda=9.6 * M * scale,
            depreciation_amortisation=2.4 * M * scale,
            interest_expense=1.2 * M * scale,
            net_income=5.0 * M * scale,
        ),
        balance=BalanceSheet(cash=h.cash, total_debt=20.0 * M, total_equity=30.0 * M),
        cash_flow=CashFlowStatement(
            capex=1.0 * M * scale,
            cash_taxes=0.5 * M * scale,
            change_in_working_capital=0.2 * M * scale,
            cash_interest=1.2 * M * scale,
        ),
    )


def package(h: Hand, package_id: str) -> CreditPackage:
    """The hand package."""
    quarters = [_quarter(h, i) for i in range(4) if i != h.drop_quarter]
    years = [_year(h, 2022), _year(h, 2023), _year(h, 2024, 9 if h.fy_stub else 12)]
    reported = sum(h.q_ebitda)
    bridge = EbitdaBridge(
        currency=h.currency,
        reported_ebitda=reported,
        addbacks=h.addbacks,
        management_adjusted_ebitda=reported + sum(a.amount for a in h.addbacks),
    )
    facility = Facility(
        facility_id=f"FAC-{package_id}",
        kind="unitranche",
        amount=h.facility,
        currency="USD",
        tenor_years=6.0,
        all_in_rate_pct=h.rate,
        amortisation_pct=h.amort,
        revolver_commitment=h.revolver,
        revolver_drawn=h.drawn,
    )
    return CreditPackage(
        package_id=package_id,
        received=date(2025, 6, 2),
        borrower=Borrower(
            borrower_id=f"B-{package_id}",
            name="Hand Case Holdings",
            industry="testing and inspection",
            reporting_currency=h.currency,
            fiscal_year_end_month=12,
            largest_customer_share_pct=h.customer_share,
            largest_customer_contract_ends=h.customer_contract_ends,
        ),
        sponsor=Sponsor(
            sponsor_id="S-X",
            name="Expert Capital",
            prior_default=h.prior_default,
            default_note="A 2020 portfolio company defaulted on its unitranche" if h.prior_default else None,
            record_on_file=h.record_on_file,
        ),
        periods=(*years, *quarters),
        bridge=bridge,
        term_sheet=TermSheet(
            facility=facility,
            covenants=tuple(
                Covenant(
                    metric=m,
                    level=v,
                    springing_utilisation_pct=dict(h.springing).get(m),
                    equity_cures=dict(h.cures).get(m, 0),
                )
                for m, v in h.covenants
            ),
            covenant_lite=not h.covenants,
            equity_contribution_pct=45.0,
            collateral="First-lien security over all assets",
        ),
        existing_debt=h.debts,
        fx_to_facility={h.currency: h.fx} if h.fx else {},
        answers=h.answers,
        sources_and_uses=h.sources_and_uses,
    )
