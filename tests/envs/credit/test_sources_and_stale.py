"""Sources and uses decide what a refinancing retires; a stale trailing twelve months is asked for."""

from __future__ import annotations

from datetime import date
from fractions import Fraction

from adapters.credit.models import BorrowerAnswer, ExistingDebt, Flow, FundPolicy, SourcesAndUses
from envs.credit.assess import assess
from envs.credit.expert.build import Hand, M, package, quarter
from envs.credit.ratios import exact, inputs_for, stale_ttm
from envs.credit.refinancing import repaid
from envs.credit.worldgen import TODAY

BANK = ExistingDebt(
    debt_id="D-1",
    lender="Regional Bank",
    seniority="senior_secured",
    outstanding=10 * M,
    currency="USD",
    rate_pct=6.0,
    annual_principal=1 * M,
    refinanced=True,
)


def _table(sources: float, repay: float, other: float) -> SourcesAndUses:
    return SourcesAndUses(
        sources=(Flow(label="Unitranche", amount=sources),),
        uses=(Flow(label="Repay bank", amount=repay, debt_id="D-1"), Flow(label="Purchase", amount=other)),
    )


def test_a_refinanced_loan_is_retired_only_as_far_as_the_uses_repay_it() -> None:
    # 44.0m raised, 6.0m of it repays the 10.0m loan: 4.0m stays, total debt 48.0m / 11.0m.
    p = package(Hand(debts=(BANK,), sources_and_uses=_table(44 * M, 6 * M, 38 * M)), "PKG-S1")
    e = exact(inputs_for(p, FundPolicy()))
    assert e.total_debt == 48 * M and e.total_leverage == Fraction(48, 11)


def test_uses_beyond_the_sources_repay_nothing_with_the_money_not_raised() -> None:
    table = _table(40 * M, 10 * M, 36 * M)
    assert repaid((BANK,), table) == {"D-1": 4 * M}


def test_a_refinancing_without_sources_and_uses_is_asked_for_before_deciding() -> None:
    p = package(Hand(debts=(BANK,)), "PKG-S2")
    found = assess(p, FundPolicy(), TODAY)
    assert found.classes == ("request_information",) and found.ask_first == ("sources_and_uses",)


def test_the_delivered_table_changes_the_figures_and_the_decision() -> None:
    short = BorrowerAnswer(
        item="sources_and_uses",
        available=True,
        text="S&U attached",
        sources_and_uses=_table(44 * M, 2 * M, 42 * M),
    )
    found = assess(package(Hand(debts=(BANK,), answers=(short,)), "PKG-S3"), FundPolicy(), TODAY)
    # 8.0m of the loan stays: 52.0m / 11.0m = 4.73x against a 5.0x covenant, 5.5% headroom.
    assert found.figures is not None and found.figures.total_leverage == 4.73
    assert found.classes == ("escalate",) and "thin_covenant_headroom" in found.escalation_reasons


def test_a_ttm_ending_more_than_a_quarter_and_the_lag_before_the_decision_is_stale() -> None:
    periods = package(Hand(), "PKG-S4").periods  # the TTM ends 2025-03-31; 2025Q2 is due 2025-08-14
    assert not stale_ttm(periods, date(2025, 8, 14), 45)
    assert stale_ttm(periods, date(2025, 8, 15), 45)


def test_a_stale_ttm_is_asked_for_and_the_latest_quarter_replaces_the_oldest() -> None:
    later = quarter(Hand(), 3).model_copy(
        update={"label": "2025Q2", "start": date(2025, 4, 1), "end": date(2025, 6, 30)}
    )
    answer = BorrowerAnswer(item="latest_quarter", available=True, text="Q2 attached", period=later)
    on = date(2025, 9, 30)
    assert assess(package(Hand(), "PKG-S5"), FundPolicy(), on).classes == ("request_information",)
    found = assess(package(Hand(answers=(answer,)), "PKG-S5"), FundPolicy(), on)
    assert found.ask_first == ("latest_quarter",) and found.classes == ("approve",)
