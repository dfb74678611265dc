"""Policy tests reported EBITDA as well as adjusted: earnings that exist only after add-backs are
not approved on adjusted EBITDA alone."""

from __future__ import annotations

from adapters.credit.models import AddBack, FundPolicy
from adapters.credit.policy_text import policy_rules
from envs.credit.assess import assess
from envs.credit.expert.build import Hand, M, package
from envs.credit.worldgen import TODAY


def _one_off(amount: float) -> AddBack:
    return AddBack(
        addback_id="AB-1",
        description="One-off legal settlement",
        category="non_recurring",
        amount=amount,
        supported=True,
    )


def test_a_business_with_negative_reported_ebitda_is_pro_forma_only_though_adjusted_is_positive() -> None:
    # Reported -1.0m, a 3.0m one-off add-back: adjusted 2.0m, 8.0m facility -> 4.0x on adjusted.
    hand = Hand(
        q_ebitda=(-0.25 * M,) * 4, addbacks=(_one_off(3 * M),), facility=8 * M, q_capex=0.0, q_taxes=0.0
    )
    found = assess(package(hand, "PKG-R1"), FundPolicy(), TODAY)
    assert found.figures is not None and found.figures.total_leverage == 4.0
    assert found.classes == ("decline", "escalate")
    assert found.escalation_reasons == ("non_positive_ebitda",)
    assert "pro_forma_only_ebitda" in found.flags


def test_debt_beyond_policy_on_reported_ebitda_goes_to_committee_though_adjusted_leverage_is_4x() -> None:
    # Reported 2.0m, a 4.0m add-back: adjusted 6.0m; 24.0m is 4.0x adjusted but 12.0x reported.
    hand = Hand(
        q_ebitda=(0.5 * M,) * 4, addbacks=(_one_off(4 * M),), facility=24 * M, q_capex=0.0, q_taxes=0.0
    )
    found = assess(package(hand, "PKG-R2"), FundPolicy(), TODAY)
    assert found.figures is not None and found.figures.total_leverage == 4.0
    assert found.classes == ("escalate", "decline")
    assert found.escalation_reasons == ("addback_dependent_earnings",)


def test_the_same_package_with_earnings_before_add_backs_is_approved() -> None:
    hand = Hand(
        q_ebitda=(1.25 * M,) * 4, addbacks=(_one_off(1 * M),), facility=24 * M, q_capex=0.0, q_taxes=0.0
    )
    assert assess(package(hand, "PKG-R3"), FundPolicy(), TODAY).classes == ("approve",)


def test_the_policy_the_analyst_reads_says_reported_ebitda_is_tested_too() -> None:
    text = " ".join(policy_rules(FundPolicy()))
    assert "Reported" in text and "addback_dependent_earnings" in text
