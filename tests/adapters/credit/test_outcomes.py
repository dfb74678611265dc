"""Later outcomes as `outcome.observed`: certificates each quarter, a breach, an amendment, a default."""

from __future__ import annotations

import random
from datetime import date

from adapters.credit.models import Covenant, FundPolicy
from adapters.credit.outcomes import DETAILS, Closing, held_up, later_outcomes, quarter_end
from envs.credit.expert.build import Hand, M, package
from envs.credit.later import closing, draw_path

CLOSING = Closing(adjusted_ebitda=11 * M, total_debt=44 * M, senior_debt=44 * M, cash_interest=4.4 * M, annual_amortisation=0.44 * M,
                  liquidity=8 * M, covenants=(Covenant(metric="max_total_leverage", level=5.0), Covenant(metric="min_interest_coverage", level=2.0)))  # fmt: skip


def _kinds(path: list[float]) -> list[str]:
    return [o.kind for o in later_outcomes("PKG-1", CLOSING, path, date(2025, 6, 30))]


def test_a_steady_borrower_delivers_one_compliant_certificate_a_quarter() -> None:
    events = later_outcomes("PKG-1", CLOSING, [1.0, 1.02, 1.04, 1.05], date(2025, 6, 30))
    assert [e.kind for e in events] == ["compliance_certificate"] * 4
    assert all(e.details["compliant"] for e in events) and held_up("approve", events) is True
    assert (
        events[0].observed_at.date() == date(2025, 8, 14) and events[3].details["quarter_end"] == "2026-03-31"
    )
    for event in events:
        DETAILS[event.kind].model_validate(event.details)


def test_the_first_breach_is_amended_and_a_breach_after_the_amendment_is_a_default() -> None:
    kinds = _kinds([1.0, 0.75, 0.75, 0.55, 0.5])
    assert kinds[:2] == ["compliance_certificate", "compliance_certificate"]
    assert "covenant_breach" in kinds and "amendment" in kinds and kinds[-1] == "default"
    assert kinds.index("amendment") < kinds.index("default")
    events = later_outcomes("PKG-1", CLOSING, [1.0, 0.75, 0.75, 0.55, 0.5], date(2025, 6, 30))
    assert held_up("approve_with_conditions", events) is False and held_up("decline", events) is None
    amendment = next(e for e in events if e.kind == "amendment")
    assert amendment.details["new_level"] > amendment.details["old_level"]


def test_quarter_ends_run_across_year_ends() -> None:
    assert [quarter_end(date(2025, 9, 30), n) for n in range(3)] == [
        date(2025, 9, 30),
        date(2025, 12, 31),
        date(2026, 3, 31),
    ]


def test_a_generated_package_plays_forward_the_same_way_for_the_same_seed() -> None:
    start = closing(package(Hand(), "PKG-L"), FundPolicy())
    assert start.total_debt == 44 * M and round(start.cash_interest) == 4.4 * M
    first = later_outcomes("PKG-L", start, draw_path(random.Random(7)), date(2025, 6, 30))
    again = later_outcomes("PKG-L", start, draw_path(random.Random(7)), date(2025, 6, 30))
    assert first == again and first[0].kind == "compliance_certificate"
