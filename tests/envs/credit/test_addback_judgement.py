"""Add-backs are read, not counted: description and history decide, and the reason is recorded."""

from __future__ import annotations

from fractions import Fraction

from adapters.credit.models import AddBack, FundPolicy
from envs.credit.addbacks import judge
from envs.credit.assess import assess
from envs.credit.expert.build import LEGAL, Hand, M, package
from envs.credit.worldgen import TODAY

POLICY = FundPolicy()


def _line(description: str, **kw: object) -> AddBack:
    fields: dict[str, object] = {
        "addback_id": "AB-9",
        "description": description,
        "category": "non_recurring",
        "amount": 1.0 * M,
        "supported": True,
    }
    return AddBack.model_validate({**fields, **kw})


def test_a_supported_one_off_is_accepted_in_full() -> None:
    verdict = judge(LEGAL, POLICY)
    assert verdict.accepted == Fraction(1_000_000) and "one-off" in verdict.reason


def test_a_charge_called_non_recurring_but_booked_three_years_running_is_recurring() -> None:
    verdict = judge(_line("Restructuring costs", booked_in=("FY2022", "FY2023")), POLICY)
    assert verdict.accepted == 0 and "FY2022" in verdict.reason and "recurring" in verdict.reason
    assert judge(_line("Restructuring costs", booked_in=("FY2023",)), POLICY).accepted == Fraction(1_000_000)


def test_a_description_that_says_the_cost_recurs_is_read() -> None:
    assert judge(_line("Annual software licence true-up"), POLICY).accepted == 0
    assert judge(_line("Non-recurring IT migration"), POLICY).accepted == Fraction(1_000_000)


def test_an_equity_cure_is_never_earnings_whatever_its_category() -> None:
    assert judge(_line("Sponsor equity cure for the Q4 covenant test"), POLICY).accepted == 0
    verdict = judge(_line("Cash injection", category="equity_cure"), POLICY)
    assert verdict.accepted == 0 and "equity cure" in verdict.reason


def test_support_counts_only_as_far_as_the_documents_tie_to_the_amount() -> None:
    verdict = judge(_line("One-off legal settlement", support_amount=0.6 * M), POLICY)
    assert verdict.accepted == Fraction(600_000) and "600,000" in verdict.reason


def test_the_assessment_records_why_each_addback_was_taken_or_left() -> None:
    cure = _line("Sponsor equity cure", addback_id="AB-3", amount=2 * M)
    found = assess(package(Hand(addbacks=(LEGAL, cure)), "PKG-A1"), POLICY, TODAY)
    assert found.figures is not None and found.figures.adjusted_ebitda == 11 * M
    assert {r.split(":")[0] for r in found.addback_reasons} == {"AB-1", "AB-3"}
