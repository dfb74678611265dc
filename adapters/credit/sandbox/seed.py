"""The sandbox deal system's built-in world: nine packages that between them carry every way a
package arrives (workbooks and PDF tables, another reporting currency, a restatement, a missing
quarter, a change of fiscal year end, covenant-lite terms, a sponsor with a prior default, a loss,
answers that change the file: sources and uses, quality of earnings, certificates, a sponsor's
breach history, the largest customer's contract).

Hand-built and deterministic, so the conformance suite and the sandbox start from the same world;
the training environments draw their own worlds (`envs.credit`).
"""

from __future__ import annotations

from datetime import date

from adapters.credit.models import (
    AddBack,
    BalanceSheet,
    Borrower,
    BorrowerAnswer,
    BreachRecord,
    CashFlowStatement,
    ComplianceCertificate,
    Covenant,
    CreditPackage,
    Currency,
    CustomerContract,
    EbitdaBridge,
    ExistingDebt,
    Facility,
    FinancialPeriod,
    Flow,
    IncomeStatement,
    SourceFormat,
    SourcesAndUses,
    Sponsor,
    TermSheet,
)
from adapters.credit.world import World

TODAY = date(2025, 11, 14)
SEED_PACKAGES = (
    "PKG-1001",
    "PKG-1002",
    "PKG-1003",
    "PKG-1004",
    "PKG-1005",
    "PKG-1006",
    "PKG-1007",
    "PKG-1008",
    "PKG-1009",
)


def _period(
    label: str,
    start: date,
    end: date,
    ebitda: float,
    *,
    months: int = 3,
    currency: Currency = "USD",
    source: SourceFormat = "workbook",
    **extra: object,
) -> FinancialPeriod:
    """A period whose figures follow from its EBITDA (in thousands, so every figure prints whole)."""
    scale = months / 3
    interest = round(ebitda * 0.1 / 1000) * 1000 if ebitda > 0 else 50_000.0 * scale
    taxes = round(max(ebitda, 0) * 0.06 / 1000) * 1000
    return FinancialPeriod(
        label=label,
        kind="Q" if "Q" in label else "FY",
        start=start,
        end=end,
        months=months,
        currency=currency,
        source=source,
        income=IncomeStatement(
            revenue=round(abs(ebitda) * 5 / 1000) * 1000,
            ebitda=ebitda,
            depreciation_amortisation=round(abs(ebitda) * 0.3 / 1000) * 1000,
            interest_expense=interest,
            net_income=ebitda - round(abs(ebitda) * 0.3 / 1000) * 1000 - interest - taxes,
        ),
        balance=BalanceSheet(cash=1_500_000.0, total_debt=12_000_000.0, total_equity=20_000_000.0),
        cash_flow=CashFlowStatement(
            capex=round(abs(ebitda) * 0.1 / 1000) * 1000,
            cash_taxes=taxes,
            change_in_working_capital=round(ebitda * 0.02 / 1000) * 1000,
            cash_interest=interest,
        ),
        **extra,
    )


def _calendar_periods(
    ebitda_q: float, *, currency: Currency = "USD", source: SourceFormat = "workbook"
) -> tuple[FinancialPeriod, ...]:
    """Three December fiscal years and the four quarters to 30 September 2025."""
    years = tuple(
        _period(
            f"FY{y}",
            date(y, 1, 1),
            date(y, 12, 31),
            ebitda_q * 4 * (0.85 + 0.05 * (y - 2022)),
            months=12,
            currency=currency,
            source=source,
        )
        for y in (2022, 2023, 2024)
    )
    quarters = (
        _period("2024Q4", date(2024, 10, 1), date(2024, 12, 31), ebitda_q, currency=currency, source=source),
        _period("2025Q1", date(2025, 1, 1), date(2025, 3, 31), ebitda_q, currency=currency, source=source),
        _period(
            "2025Q2",
            date(2025, 4, 1),
            date(2025, 6, 30),
            ebitda_q + 100_000,
            currency=currency,
            source=source,
        ),
        _period(
            "2025Q3",
            date(2025, 7, 1),
            date(2025, 9, 30),
            ebitda_q - 100_000,
            currency=currency,
            source=source,
        ),
    )
    return years + quarters


def _terms(amount: float, *, covenants: bool = True, currency: Currency = "USD") -> TermSheet:
    return TermSheet(
        facility=Facility(
            facility_id="FAC-1",
            kind="unitranche",
            amount=amount,
            currency=currency,
            tenor_years=6.0,
            all_in_rate_pct=8.5,
            amortisation_pct=1.0,
            revolver_commitment=5_000_000.0,
        ),
        covenants=(
            Covenant(metric="max_total_leverage", level=6.0),
            Covenant(metric="min_interest_coverage", level=2.0),
        )
        if covenants
        else (),
        covenant_lite=not covenants,
        equity_contribution_pct=45.0,
        collateral="First-lien security over all assets and shares of the borrower",
    )


def _bridge(reported: float, currency: Currency = "USD", synergy: float = 0.0) -> EbitdaBridge:
    addbacks = [
        AddBack(
            addback_id="AB-1",
            description="One-off legal settlement",
            category="non_recurring",
            amount=400_000.0,
            supported=True,
        ),
        AddBack(
            addback_id="AB-2",
            description="Annual trade-show costs",
            category="recurring_cost",
            amount=150_000.0,
            supported=True,
            recurring=True,
        ),
    ]
    if synergy:
        addbacks.append(
            AddBack(
                addback_id="AB-3",
                description="Procurement savings from the add-on acquisition",
                category="projected_synergy",
                amount=synergy,
                supported=True,
            )
        )
    return EbitdaBridge(
        currency=currency,
        reported_ebitda=reported,
        addbacks=tuple(addbacks),
        management_adjusted_ebitda=reported + sum(a.amount for a in addbacks),
    )


def _package(
    package_id: str, name: str, periods: tuple[FinancialPeriod, ...], amount: float, **changes: object
) -> CreditPackage:
    ttm = sum(p.income.ebitda for p in periods if p.kind == "Q")
    package = CreditPackage(
        package_id=package_id,
        received=date(2025, 11, 3),
        borrower=Borrower(
            borrower_id=f"B-{package_id[4:]}",
            name=name,
            industry="Specialty distribution",
            reporting_currency=periods[0].currency,
            fiscal_year_end_month=12,
            largest_customer_share_pct=18.0,
        ),
        sponsor=Sponsor(sponsor_id="S-1", name="Northgate Partners"),
        periods=periods,
        bridge=_bridge(ttm, periods[0].currency),
        term_sheet=_terms(amount),
        existing_debt=(
            ExistingDebt(
                debt_id="D-1",
                lender="Regional Bank",
                seniority="senior_secured",
                outstanding=8_000_000.0,
                currency="USD",
                rate_pct=6.5,
                annual_principal=400_000.0,
                refinanced=True,
            ),
        ),
        sources_and_uses=SourcesAndUses(
            sources=(
                Flow(label="Unitranche", amount=amount),
                Flow(label="Sponsor equity", amount=amount / 2),
            ),
            uses=(
                Flow(label="Repay Regional Bank", amount=8_000_000.0, debt_id="D-1"),
                Flow(label="Purchase price and fees", amount=amount * 1.5 - 8_000_000.0),
            ),
        ),
    )
    return package.model_copy(update=changes)


def _restated() -> CreditPackage:
    periods = list(_calendar_periods(2_000_000.0))
    periods[2] = periods[2].model_copy(
        update={"restated": True, "restated_on": date(2025, 8, 20), "original_ebitda": 7_900_000.0}
    )
    answer = BorrowerAnswer(
        item="restatement_reconciliation",
        available=True,
        text="FY2024 restated for a revenue cut-off error; reconciliation attached.",
    )
    return _package("PKG-1003", "Calder Precision Group", tuple(periods), 30_000_000.0, answers=(answer,))


def _missing_quarter() -> CreditPackage:
    periods = _calendar_periods(1_500_000.0)
    missing = next(p for p in periods if p.label == "2025Q2")
    answer = BorrowerAnswer(
        item="missing_quarter", available=True, text="Q2 2025 management accounts attached.", period=missing
    )
    kept = tuple(p for p in periods if p.label != "2025Q2")
    return _package("PKG-1004", "Ridgeway Foods Holdings", kept, 20_000_000.0, answers=(answer,))


def _fiscal_year_change() -> CreditPackage:
    """Year end moved from December to March: a three-month stub year to March 2025."""
    periods = (
        _period("FY2023", date(2023, 1, 1), date(2023, 12, 31), 9_600_000.0, months=12),
        _period("FY2024", date(2024, 1, 1), date(2024, 12, 31), 10_400_000.0, months=12),
        _period("FY2025", date(2025, 1, 1), date(2025, 3, 31), 2_700_000.0, months=3, source="pdf_table"),
        _period("2025Q4", date(2025, 1, 1), date(2025, 3, 31), 2_700_000.0, source="pdf_table"),
        _period("2026Q1", date(2025, 4, 1), date(2025, 6, 30), 2_600_000.0, source="pdf_table"),
        _period("2026Q2", date(2025, 7, 1), date(2025, 9, 30), 2_800_000.0, source="pdf_table"),
        _period("2024Q4", date(2024, 10, 1), date(2024, 12, 31), 2_500_000.0),
    )
    answer = BorrowerAnswer(item="fiscal_year_bridge", available=False, text="The auditors are preparing it.")
    package = _package("PKG-1005", "Lakemont Services", periods, 35_000_000.0, answers=(answer,))
    return package.model_copy(
        update={"borrower": package.borrower.model_copy(update={"fiscal_year_end_month": 3})}
    )


def _answers_change_the_file() -> CreditPackage:
    """A refinancing with no sources and uses and an unsupported add-back: each answer changes the
    file (the table, the add-back's support), and the certificates and breach history are facts."""
    unsupported = AddBack(
        addback_id="AB-3",
        description="Founder salary above market",
        category="owner_compensation",
        amount=300_000.0,
        supported=False,
    )
    base = _package("PKG-1007", "Tamsin Fire Safety Group", _calendar_periods(2_200_000.0), 36_000_000.0)
    bridge = base.bridge.model_copy(
        update={
            "addbacks": (*base.bridge.addbacks, unsupported),
            "management_adjusted_ebitda": base.bridge.management_adjusted_ebitda + unsupported.amount,
        }
    )
    table = SourcesAndUses(
        sources=(Flow(label="Unitranche", amount=36_000_000.0),),
        uses=(
            Flow(label="Repay Regional Bank", amount=5_000_000.0, debt_id="D-1"),
            Flow(label="Purchase price and fees", amount=31_000_000.0),
        ),
    )
    answers = (
        BorrowerAnswer(
            item="sources_and_uses",
            available=True,
            text="Sources and uses attached: 5.0m of the 8.0m bank loan is repaid at closing.",
            sources_and_uses=table,
        ),
        BorrowerAnswer(
            item="quality_of_earnings",
            available=True,
            text="Quality-of-earnings report attached: founder pay above market confirmed at 250,000.",
            addbacks=(unsupported.model_copy(update={"supported": True, "support_amount": 250_000.0}),),
        ),
        BorrowerAnswer(
            item="compliance_certificates",
            available=True,
            text="Compliance certificates for the last four quarters: every test passed.",
        ),
        BorrowerAnswer(
            item="breach_history", available=True, text="No covenant breach, waiver or amendment."
        ),
        BorrowerAnswer(
            item="customer_contracts",
            available=False,
            text="The top customer's renewal is under negotiation.",
        ),
    )
    return base.model_copy(update={"bridge": bridge, "sources_and_uses": None, "answers": answers})


def _qoe_restates_and_cures() -> CreditPackage:
    """An unsupported add-back whose quality-of-earnings report supports it but restates a quarter
    (the restated quarter replaces the one delivered), and covenants the sponsor may cure six times
    (leverage) and twice (cover); the compliance certificates are to follow."""
    unsupported = AddBack(
        addback_id="AB-3",
        description="One-off costs of the failed sale process",
        category="non_recurring",
        amount=900_000.0,
        supported=False,
    )
    base = _package("PKG-1008", "Wexford Lab Services", _calendar_periods(2_300_000.0), 44_000_000.0)
    bridge = base.bridge.model_copy(
        update={
            "addbacks": (*base.bridge.addbacks, unsupported),
            "management_adjusted_ebitda": base.bridge.management_adjusted_ebitda + unsupported.amount,
        }
    )
    q2 = next(p for p in base.periods if p.label == "2025Q2")
    restated = q2.model_copy(
        update={
            "restated": True,
            "restated_on": date(2025, 11, 20),
            "original_ebitda": q2.income.ebitda,
            "income": q2.income.model_copy(update={"ebitda": q2.income.ebitda - 500_000.0}),
        }
    )
    answers = (
        BorrowerAnswer(
            item="quality_of_earnings",
            available=True,
            text="Quality-of-earnings report attached: the sale-process costs are confirmed, but 2025Q2 "
            "revenue recognised early is reversed, restating that quarter's EBITDA down by 500,000.",
            addbacks=(unsupported.model_copy(update={"supported": True}),),
            period=restated,
        ),
        BorrowerAnswer(
            item="compliance_certificates",
            available=False,
            text="The Q3 certificate is with the agent; to follow.",
        ),
    )
    covenants = tuple(
        c.model_copy(update={"equity_cures": 6 if c.metric == "max_total_leverage" else 2})
        for c in base.term_sheet.covenants
    )
    return base.model_copy(
        update={
            "bridge": bridge,
            "answers": answers,
            "term_sheet": base.term_sheet.model_copy(update={"covenants": covenants}),
        }
    )


def _answers_that_decide() -> CreditPackage:
    """A bank loan that stays with maintenance covenants, a sponsor new to the fund, and a
    concentrated book whose largest contract ends before maturity; the certificate certifies more
    principal than the debt schedule (and a miss the sponsor cured), the breach history holds a default that
    cost lenders money, and the largest customer has given notice."""
    base = _package("PKG-1009", "Orchard Valley Dairies", _calendar_periods(2_400_000.0), 38_000_000.0)
    loan = ExistingDebt(
        debt_id="D-2",
        lender="Fenwick Bank",
        seniority="senior_secured",
        outstanding=3_000_000.0,
        currency="USD",
        rate_pct=8.0,
        annual_principal=150_000.0,
        maintenance_covenants=True,
        max_cure_amount=500_000.0,
    )
    answers = (
        BorrowerAnswer(
            item="compliance_certificates",
            available=True,
            text="Compliance certificate for 2025Q3 attached: the leverage test was missed and the sponsor paid in "
            "an equity cure; the certified principal includes the accordion drawn in August.",
            certificates=(
                # Tested at 4.5x on 13.5m of debt and 2.8m of EBITDA: a 0.2m cure is needed, 0.25m paid.
                ComplianceCertificate(
                    debt_id="D-2",
                    period_end=date(2025, 9, 30),
                    outstanding=4_500_000.0,
                    passed=False,
                    leverage_level=4.5,
                    covenant_debt=13_500_000.0,
                    covenant_ebitda=2_800_000.0,
                    cure_paid=250_000.0,
                ),
            ),
        ),
        BorrowerAnswer(
            item="breach_history",
            available=True,
            text="Breach history attached: one portfolio company missed an interest payment and was restructured.",
            breach_history=(
                BreachRecord(
                    company="Cinder Packaging",
                    year=2021,
                    kind="payment_default",
                    resolution="restructured; the lenders wrote off 35% of the loan",
                    lenders_repaid_in_full=False,
                ),
            ),
        ),
        BorrowerAnswer(
            item="customer_contracts",
            available=True,
            text="Customer contracts attached: the largest customer will not renew when its term ends.",
            customer_contract=CustomerContract(
                customer="Castlegate Retail",
                status="notice_given",
                ends=date(2026, 6, 30),
                ebitda_contribution=900_000.0,
            ),
        ),
    )
    return base.model_copy(
        update={
            "existing_debt": (*base.existing_debt, loan),
            "sponsor": Sponsor(sponsor_id="S-9", name="Larkspur Equity", record_on_file=False),
            "borrower": base.borrower.model_copy(
                update={
                    "largest_customer_share_pct": 41.0,
                    "largest_customer_contract_ends": date(2026, 6, 30),
                }
            ),
            "answers": answers,
        }
    )


def seed_world() -> World:
    """The built-in world of the credit sandbox (and of the conformance suite)."""
    eur = _calendar_periods(1_800_000.0, currency="EUR", source="pdf_table")
    packages = [
        _package("PKG-1001", "Harbour Distribution Holdings", _calendar_periods(2_500_000.0), 40_000_000.0),
        _package(
            "PKG-1002", "Norrland Logistik Group", eur, 30_000_000.0, fx_to_facility={"EUR": 1.08, "USD": 1.0}
        ),
        _restated(),
        _missing_quarter(),
        _fiscal_year_change(),
        _package(
            "PKG-1006",
            "Kestrel Outdoor Industries",
            _calendar_periods(-300_000.0),
            15_000_000.0,
            sponsor=Sponsor(
                sponsor_id="S-4",
                name="Crestline Capital",
                prior_default=True,
                default_note="Portfolio company Aldane Retail defaulted in 2021",
            ),
            term_sheet=_terms(15_000_000.0, covenants=False),
        ),
        _answers_change_the_file(),
        _qoe_restates_and_cures(),
        _answers_that_decide(),
    ]
    packages[1] = packages[1].model_copy(update={"bridge": _bridge(7_300_000.0, "EUR", synergy=2_000_000.0)})
    return World(today=TODAY, packages={p.package_id: p for p in packages})
