"""Seeded credit packages: a borrower's periods, bridge, facility and debt drawn around target ratios.

`draw` builds a package in the facility currency from `Knobs` (target leverage, rate, capex, ...);
the generator then sets covenant levels from the figures so the headroom is what the case needs.
Everything comes from the `random.Random` passed in, so a seed always gives the same package.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from adapters.credit.models import (
    AddBack,
    AddBackCategory,
    BalanceSheet,
    Borrower,
    CashFlowStatement,
    Covenant,
    CreditPackage,
    Currency,
    EbitdaBridge,
    ExistingDebt,
    Facility,
    FinancialPeriod,
    Flow,
    FundPolicy,
    IncomeStatement,
    SourcesAndUses,
    Sponsor,
    TermSheet,
)
from envs.credit.assess import inputs_of
from envs.credit.calendar import period_bounds, quarter_label, shift
from envs.credit.ratios import figures

# fmt: off
INDUSTRIES = (
    "specialty chemicals", "veterinary clinics", "HVAC services", "dental support organisation",
    "B2B software", "food ingredients", "industrial packaging", "testing and inspection",
    "insurance brokerage", "logistics software", "precision machining", "home health services",
)
NAMES = ("Alder", "Birch", "Cobalt", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juniper",
         "Kestrel", "Lumen", "Meridian", "Northwind", "Onyx", "Pioneer", "Quarry", "Redwood", "Summit",
         "Tidewater")
SPONSORS = ("Bluewater Capital", "Crestline Partners", "Ironbridge Equity", "Larchmont Capital",
            "Oakhurst Partners", "Stonepeak Growth")
# fmt: on
TODAY = date(2025, 6, 16)


@dataclass(frozen=True)
class Knobs:
    """What a case needs from the draw."""

    leverage: tuple[float, float] = (2.5, 4.6)
    """Target total leverage range."""
    rate_pct: tuple[float, float] = (7.0, 9.5)
    """All-in rate range."""
    capex_share: tuple[float, float] = (0.08, 0.18)
    """Capex as a share of TTM EBITDA."""
    amortisation_pct: tuple[float, float] = (1.0, 2.5)
    """Facility amortisation a year."""
    headroom: tuple[float, float] = (0.25, 0.45)
    """Covenant cushion as a share of the actual ratio."""
    negative_ebitda: bool = False
    """Draw a loss-making borrower."""


def _u(rng: random.Random, bounds: tuple[float, float]) -> float:
    return rng.uniform(*bounds)


def _money(x: float) -> float:
    return round(x, -3)


def _quarters(
    rng: random.Random, ttm: float, end: tuple[int, int], fye: int, ccy: Currency, interest: float
) -> list[FinancialPeriod]:
    weights = [rng.uniform(0.9, 1.1) for _ in range(4)]
    scale = sum(weights)
    margin = rng.uniform(0.12, 0.3)
    out: list[FinancialPeriod] = []
    for i, w in enumerate(weights):
        year, month = shift(*end, -3 * (3 - i))
        start, stop = period_bounds(year, month, 3)
        ebitda = _money(ttm * w / scale)
        da = _money(abs(ebitda) * 0.3)
        taxes = _money(max(ebitda, 0) * rng.uniform(0.04, 0.08))
        out.append(
            FinancialPeriod(
                label=quarter_label(stop, fye),
                kind="Q",
                start=start,
                end=stop,
                months=3,
                currency=ccy,
                income=IncomeStatement(
                    revenue=_money(abs(ebitda) / margin),
                    ebitda=ebitda,
                    depreciation_amortisation=da,
                    interest_expense=_money(interest / 4),
                    net_income=_money(ebitda - da - interest / 4 - taxes),
                ),
                balance=BalanceSheet(cash=0.0, total_debt=0.0, total_equity=_money(abs(ttm) * 2)),
                cash_flow=CashFlowStatement(
                    capex=0.0,
                    cash_taxes=taxes,
                    change_in_working_capital=_money(abs(ttm) * rng.uniform(-0.01, 0.025)),
                    cash_interest=_money(interest / 4),
                ),
            )
        )
    return out


def _years(quarters: list[FinancialPeriod], rng: random.Random, fye: int) -> list[FinancialPeriod]:
    latest = quarters[-1]
    out: list[FinancialPeriod] = []
    factor = 1.0
    for back in range(3):
        year, month = shift(latest.end.year, latest.end.month, -12 * back)
        start, stop = period_bounds(year, month, 12)
        inc = IncomeStatement(
            revenue=_money(sum(q.income.revenue for q in quarters) * factor),
            ebitda=_money(sum(q.income.ebitda for q in quarters) * factor),
            depreciation_amortisation=_money(
                sum(q.income.depreciation_amortisation for q in quarters) * factor
            ),
            interest_expense=_money(sum(q.income.interest_expense for q in quarters)),
            net_income=_money(sum(q.income.net_income for q in quarters) * factor),
        )
        cf = CashFlowStatement(
            capex=_money(sum(q.cash_flow.capex for q in quarters) * factor),
            cash_taxes=_money(sum(q.cash_flow.cash_taxes for q in quarters) * factor),
            change_in_working_capital=_money(
                sum(q.cash_flow.change_in_working_capital for q in quarters) * factor
            ),
            cash_interest=_money(sum(q.cash_flow.cash_interest for q in quarters)),
        )
        out.append(
            FinancialPeriod(
                label=f"FY{stop.year}",
                kind="FY",
                start=start,
                end=stop,
                months=12,
                currency=latest.currency,
                income=inc,
                balance=latest.balance,
                cash_flow=cf,
            )
        )
        factor /= rng.uniform(1.03, 1.15)
    return out[::-1]


def _sources(years: list[FinancialPeriod], rng: random.Random) -> list[FinancialPeriod]:
    # Older years often arrive only as tables taken from a PDF of the audited accounts.
    return [
        y.model_copy(update={"source": "pdf_table"}) if i == 0 and rng.random() < 0.5 else y
        for i, y in enumerate(years)
    ]


def _bridge(rng: random.Random, reported: float, ccy: Currency, policy: FundPolicy) -> EbitdaBridge:
    lines: list[AddBack] = []
    pool: list[tuple[AddBackCategory, str, bool, bool]] = [
        ("non_recurring", "One-off legal settlement", True, False),
        ("restructuring", "Plant consolidation severance", True, False),
        ("owner_compensation", "Founder salary above market", rng.random() < 0.6, False),
        ("recurring_cost", "Annual trade-show costs", True, True),
        ("projected_synergy", "Procurement savings from the add-on acquisition", True, False),
    ]
    for n, (category, text, supported, recurring) in enumerate(rng.sample(pool, rng.randint(1, 4)), start=1):
        share = (
            rng.uniform(0.02, 0.06)
            if category != "projected_synergy"
            else rng.uniform(0.03, policy.addback_cap_pct / 100 * 0.8)
        )
        lines.append(
            AddBack(
                addback_id=f"AB-{n}",
                description=text,
                category=category,
                amount=_money(abs(reported) * share),
                supported=supported,
                recurring=recurring,
            )
        )
    return EbitdaBridge(
        currency=ccy,
        reported_ebitda=reported,
        addbacks=tuple(lines),
        management_adjusted_ebitda=reported + sum(a.amount for a in lines),
    )


def draw(rng: random.Random, package_id: str, knobs: Knobs, policy: FundPolicy) -> CreditPackage:
    """A package in USD around `knobs`, with covenants set at the knobs' headroom."""
    fye = rng.choice((12, 12, 3, 6, 9))
    end = shift(*((TODAY.year, fye) if fye < TODAY.month - 2 else (TODAY.year - 1, fye)), 0)
    ttm = _money(rng.uniform(6e6, 45e6)) * (-0.15 if knobs.negative_ebitda else 1)
    quarters = _quarters(rng, ttm, end, fye, "USD", interest=0.0)
    bridge = _bridge(rng, sum(q.income.ebitda for q in quarters), "USD", policy)
    rate = round(_u(rng, knobs.rate_pct), 2)
    capex = abs(ttm) * _u(rng, knobs.capex_share)
    quarters = [
        q.model_copy(update={"cash_flow": q.cash_flow.model_copy(update={"capex": _money(capex / 4)})})
        for q in quarters
    ]
    adjusted_guess = abs(bridge.management_adjusted_ebitda) * 0.97
    total_debt = _u(rng, knobs.leverage) * adjusted_guess
    debts: list[ExistingDebt] = []
    if rng.random() < 0.5:
        debts.append(
            ExistingDebt(
                debt_id="D-1",
                lender="Regional Bank",
                seniority="senior_secured",
                outstanding=_money(total_debt * 0.3),
                currency="USD",
                rate_pct=6.5,
                annual_principal=_money(total_debt * 0.015),
                refinanced=True,
            )
        )
    kept = 0.0
    if rng.random() < 0.5:
        kept = _money(total_debt * rng.uniform(0.08, 0.2))
        debts.append(
            ExistingDebt(
                debt_id="D-2",
                lender="Seller note",
                seniority="subordinated",
                outstanding=kept,
                currency="USD",
                rate_pct=round(rng.uniform(8, 12), 1),
                annual_principal=0.0,
            )
        )
    revolver = _money(abs(ttm) * rng.uniform(0.2, 0.5))
    facility = Facility(
        facility_id=f"FAC-{package_id.removeprefix('PKG-')}",
        kind=rng.choice(("unitranche", "senior_term_loan")),
        amount=max(_money(total_debt - kept), 1e6),
        currency="USD",
        tenor_years=rng.choice((5.0, 6.0, 7.0)),
        all_in_rate_pct=rate,
        amortisation_pct=round(_u(rng, knobs.amortisation_pct), 1),
        revolver_commitment=revolver,
        revolver_drawn=0.0,
    )
    cash = _money(abs(ttm) * rng.uniform(0.05, 0.2))
    balance = BalanceSheet(
        cash=cash, total_debt=_money(sum(d.outstanding for d in debts)), total_equity=_money(abs(ttm) * 2)
    )
    quarters = [q.model_copy(update={"balance": balance}) for q in quarters]
    name = f"{rng.choice(NAMES)} {rng.choice(('Holdings', 'Group', 'Industries', 'Services'))}"
    package = CreditPackage(
        package_id=package_id,
        received=TODAY - timedelta(days=rng.randint(2, 20)),
        borrower=Borrower(
            borrower_id=f"B-{package_id.removeprefix('PKG-')}",
            name=name,
            industry=rng.choice(INDUSTRIES),
            reporting_currency="USD",
            fiscal_year_end_month=fye,
            largest_customer_share_pct=round(rng.uniform(4, 24), 1),
        ),
        sponsor=Sponsor(sponsor_id=f"S-{rng.randint(1, 6)}", name=rng.choice(SPONSORS)),
        periods=(*_sources(_years(quarters, rng, fye), rng), *quarters),
        bridge=bridge,
        term_sheet=TermSheet(
            facility=facility,
            covenants=(),
            equity_contribution_pct=round(rng.uniform(35, 60), 1),
            collateral="First-lien security over all assets and shares of the borrower",
        ),
        existing_debt=tuple(debts),
        sources_and_uses=_sources_and_uses(facility.amount, debts),
    )
    return with_covenants(package, policy, _u(rng, knobs.headroom), rng)


def _sources_and_uses(amount: float, debts: list[ExistingDebt]) -> SourcesAndUses | None:
    """A table whose sources repay every refinanced debt in full; None when none is refinanced."""
    repaid = [d for d in debts if d.refinanced]
    return repaying(amount, repaid) if repaid else None


def repaying(amount: float, debts: Sequence[ExistingDebt]) -> SourcesAndUses:
    """The sources and uses of a facility of `amount` that repays `debts` in full: sponsor equity
    makes up any gap, and what is left pays the purchase price and fees."""
    owed = sum(d.outstanding for d in debts)
    sources = [Flow(label="Facility", amount=amount)]
    if owed > amount:
        sources.append(Flow(label="Sponsor equity", amount=owed - amount))
    uses = [Flow(label=f"Repay {d.lender}", amount=d.outstanding, debt_id=d.debt_id) for d in debts]
    uses.append(Flow(label="Purchase price and fees", amount=max(amount - owed, 0.0)))
    return SourcesAndUses(sources=tuple(sources), uses=tuple(uses))


def with_covenants(
    package: CreditPackage, policy: FundPolicy, cushion: float, rng: random.Random
) -> CreditPackage:
    """The package with a total-leverage and an interest-coverage covenant `cushion` from the figures."""
    f = figures(inputs_of(package, policy))
    covenants: tuple[Covenant, ...]
    if f.adjusted_ebitda <= 0:
        covenants = (
            Covenant(metric="max_total_leverage", level=6.0),
            Covenant(metric="min_interest_coverage", level=1.5),
        )
    else:
        covenants = (
            Covenant(metric="max_total_leverage", level=round(f.total_leverage / (1 - cushion), 2)),
            Covenant(
                metric="min_interest_coverage", level=round(max(f.interest_coverage / (1 + cushion), 0.5), 2)
            ),
        )
        if rng.random() < 0.4:
            level = round(max(f.fixed_charge_coverage / (1 + cushion + 0.05), 0.5), 2)
            covenants = (*covenants, Covenant(metric="min_fccr", level=level))
    term_sheet = package.term_sheet.model_copy(update={"covenants": covenants})
    return package.model_copy(update={"term_sheet": term_sheet})
