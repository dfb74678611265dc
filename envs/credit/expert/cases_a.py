"""Expert cases x01-x11: the decision classes on the reference package, restatements, missing
quarters and capped add-backs. Figures are worked by hand from `build.Hand` (see each comment)."""

from __future__ import annotations

from datetime import date
from typing import Any

from adapters.credit.models import AddBack, BorrowerAnswer
from envs.credit.assess import Assessment
from envs.credit.expert.build import LEGAL, TRADE_SHOW, Hand, M, package, quarter
from envs.credit.expert.model import Decision, ExpertCase, figures, move

# Reference package: EBITDA 10.0m + 1.0m accepted = 11.0m; debt 44.0m -> 4.00x; interest 4.4m -> 2.50x;
# FCCR (11.0 - 1.0 - 0.5) / (4.4 + 0.44) = 1.96; DSCR (9.5 - 0.2) / 4.84 = 1.92; liquidity 3.0 + 5.0 = 8.0m;
# headroom (5.0 - 4.0) / 5.0 = 20.0%, (2.5 - 2.0) / 2.0 = 25.0%.
BASE_F = figures(
    11 * M, 4.0, 4.0, 2.5, 1.96, 1.92, 8 * M, max_total_leverage=20.0, min_interest_coverage=25.0
)


def cond(kind: str, detail: str, value: float | None = None) -> dict[str, Any]:
    """A condition as `record_recommendation` takes it."""
    return {"kind": kind, "detail": detail, "value": value}


# fmt: off
def x01() -> ExpertCase:
    p = package(Hand(), "PKG-X01")
    approve = Decision("approve", BASE_F)
    return ExpertCase(
        "x01-approve", "every ratio inside policy with 20% headroom", ("class:approve",),
        "Total leverage = total debt / adjusted EBITDA; Covenant headroom = distance of each ratio from its covenant level",
        p, Assessment(classes=("approve",), figures=BASE_F),
        golds=(move("approve", "4.0x against a 5.0x target, 2.5x coverage, 20% and 25% headroom", p, approve),),
        wrong_moves=(
            move("no_reads", "a decision nobody read the package for", p, approve, skip_reads=True),
            move("memo_without_headroom", "the memo does not state the covenant headroom", p,
                 Decision("approve", BASE_F, memo="Adjusted EBITDA USD 11,000,000, total leverage 4.00x, interest coverage 2.50x. Approve.")),
            move("decline", "declines a package policy approves", p, Decision("decline", BASE_F)),
        ),
    )


def x02() -> ExpertCase:
    # 60.5m facility: 5.50x; interest 6.05m -> 1.82x; FCCR 9.5 / 6.655 = 1.43; DSCR 9.3 / 6.655 = 1.40;
    # headroom (7.0 - 5.5) / 7.0 = 21.4%, (1.818 - 1.5) / 1.5 = 21.2%; 5.0x target -> at most 55.0m.
    p = package(
        Hand(facility=60.5 * M, covenants=(("max_total_leverage", 7.0), ("min_interest_coverage", 1.5))),
        "PKG-X02",
    )
    f = figures(
        11 * M, 5.5, 5.5, 1.82, 1.43, 1.40, 8 * M, max_total_leverage=21.4, min_interest_coverage=21.2
    )
    return ExpertCase(
        "x02-lower-amount", "5.5x against a 5.0x target: approve a smaller facility", ("class:approve_with_conditions",),
        "Approve with conditions (tighter covenant, lower amount, more equity)",
        p, Assessment(classes=("approve_with_conditions",), figures=f, conditions=("lower_amount",), max_amount=55 * M),
        golds=(move("lower_amount", "55.0m keeps leverage at the 5.0x target", p,
                    Decision("approve_with_conditions", f, (cond("lower_amount", "Reduce the facility to USD 55,000,000", 55 * M),))),),
        wrong_moves=(
            move("approve_as_asked", "approves 5.5x without a condition", p, Decision("approve", f)),
            move("amount_too_high", "a lower amount that still leaves leverage above target", p,
                 Decision("approve_with_conditions", f, (cond("lower_amount", "Reduce the facility to USD 58,000,000", 58 * M),))),
        ),
    )


def x03() -> ExpertCase:
    # 88.0m at 6%: 8.00x; interest 5.28m -> 2.08x; FCCR 9.5 / 6.16 = 1.54; DSCR 9.3 / 6.16 = 1.51;
    # headroom (9.5 - 8.0) / 9.5 = 15.8%, (2.083 - 1.75) / 1.75 = 19.0%.
    p = package(
        Hand(
            facility=88 * M,
            rate=6.0,
            covenants=(("max_total_leverage", 9.5), ("min_interest_coverage", 1.75)),
        ),
        "PKG-X03",
    )
    f = figures(
        11 * M, 8.0, 8.0, 2.08, 1.54, 1.51, 8 * M, max_total_leverage=15.8, min_interest_coverage=19.0
    )
    return ExpertCase(
        "x03-decline-leverage", "8.0x is beyond the 7.5x the fund ever lends at", ("class:decline",),
        "Decline; fund policy (configurable) sets the thresholds",
        p, Assessment(classes=("decline",), figures=f),
        golds=(move("decline", "8.0x is above the 7.5x decline line", p, Decision("decline", f)),),
        wrong_moves=(
            move("escalate", "the committee is for 6.0x-7.5x, not for what policy declines", p,
                 Decision("escalate", f, reasons=("leverage_above_policy",))),
        ),
    )


def x04() -> ExpertCase:
    # 55.0m at 14%: 5.00x; interest 7.7m -> 1.43x; FCCR 9.5 / 8.25 = 1.15; DSCR 9.3 / 8.25 = 1.13;
    # headroom (6.0 - 5.0) / 6.0 = 16.7%, (1.429 - 1.25) / 1.25 = 14.3%.
    p = package(
        Hand(
            facility=55 * M,
            rate=14.0,
            covenants=(("max_total_leverage", 6.0), ("min_interest_coverage", 1.25)),
        ),
        "PKG-X04",
    )
    f = figures(
        11 * M, 5.0, 5.0, 1.43, 1.15, 1.13, 8 * M, max_total_leverage=16.7, min_interest_coverage=14.3
    )
    return ExpertCase(
        "x04-decline-coverage", "interest coverage of 1.43x under the 1.5x floor", ("class:decline",),
        "Interest coverage = EBITDA / cash interest",
        p, Assessment(classes=("decline",), figures=f),
        golds=(move("decline", "coverage below 1.5x is declined", p, Decision("decline", f)),),
        wrong_moves=(
            move("escalate_thin_headroom", "thin headroom is moot once coverage is below the floor", p,
                 Decision("escalate", f, reasons=("thin_covenant_headroom",))),
            move("more_equity", "more equity does not fix the coverage", p,
                 Decision("approve_with_conditions", f, (cond("more_equity", "Sponsor equity of at least 55%", 55.0),))),
        ),
    )


def x05() -> ExpertCase:
    # 71.5m at 7%: 6.50x; interest 5.005m -> 2.20x; FCCR 9.5 / 5.72 = 1.66; DSCR 9.3 / 5.72 = 1.63;
    # headroom (8.0 - 6.5) / 8.0 = 18.8%, (2.198 - 1.8) / 1.8 = 22.1%.
    p = package(
        Hand(
            facility=71.5 * M,
            rate=7.0,
            covenants=(("max_total_leverage", 8.0), ("min_interest_coverage", 1.8)),
        ),
        "PKG-X05",
    )
    f = figures(11 * M, 6.5, 6.5, 2.2, 1.66, 1.63, 8 * M, max_total_leverage=18.8, min_interest_coverage=22.1)
    return ExpertCase(
        "x05-escalate-leverage", "6.5x: above 6.0x the committee decides", ("class:escalate",),
        "leverage above 6.0x or headroom under 15% -> escalate",
        p, Assessment(classes=("escalate",), figures=f, escalation_reasons=("leverage_above_policy",)),
        golds=(move("escalate", "policy reserves 6.0x-7.5x to the committee", p, Decision("escalate", f, reasons=("leverage_above_policy",))),),
        wrong_moves=(
            move("lower_amount", "an analyst may not approve 6.5x, even smaller", p,
                 Decision("approve_with_conditions", f, (cond("lower_amount", "Reduce the facility to USD 55,000,000", 55 * M),))),
            move("escalate_wrong_reason", "the committee is told of a default that is not there", p,
                 Decision("escalate", f, reasons=("sponsor_prior_default",))),
        ),
    )


def x06() -> ExpertCase:
    # Reference figures; headroom (4.5 - 4.0) / 4.5 = 11.1% under the 15% floor.
    p = package(Hand(covenants=(("max_total_leverage", 4.5), ("min_interest_coverage", 2.0))), "PKG-X06")
    f = figures(11 * M, 4.0, 4.0, 2.5, 1.96, 1.92, 8 * M, max_total_leverage=11.1, min_interest_coverage=25.0)
    return ExpertCase(
        "x06-thin-headroom", "a 4.5x covenant leaves 11% headroom", ("class:escalate",),
        "headroom under 15% -> escalate",
        p, Assessment(classes=("escalate",), figures=f, escalation_reasons=("thin_covenant_headroom",)),
        golds=(move("escalate", "11.1% is under the 15% floor", p, Decision("escalate", f, reasons=("thin_covenant_headroom",))),),
        wrong_moves=(
            move("approve", "approves a deal one bad quarter from breach", p, Decision("approve", f)),
            move("headroom_misstated", "headroom measured against the wrong covenant level", p,
                 Decision("escalate", figures(11 * M, 4.0, 4.0, 2.5, 1.96, 1.92, 8 * M, max_total_leverage=20.0, min_interest_coverage=25.0),
                          reasons=("thin_covenant_headroom",))),
        ),
    )


RESTATED = (1, date(2025, 3, 1), 3.0 * M)
PENDING = BorrowerAnswer(
    item="restatement_reconciliation", available=False, text="With the auditors; to follow."
)
DELIVERED = BorrowerAnswer(
    item="restatement_reconciliation", available=True, text="2024Q3 restated from 3.0m to 2.5m EBITDA."
)


def x07() -> ExpertCase:
    p = package(Hand(restated=RESTATED, answers=(PENDING,)), "PKG-X07")
    return ExpertCase(
        "x07-restated-pending", "a quarter restated in March, the reconciliation to follow", ("class:request_information", "edge:restatement"),
        "any restatement in the last two years -> request information first",
        p, Assessment(classes=("request_information",), ask_first=("restatement_reconciliation",)),
        golds=(move("request", "nothing can be decided before the reconciliation", p, Decision("request_information"),
                    request=("restatement_reconciliation",)),),
        wrong_moves=(
            move("approve_now", "decides on restated figures without asking", p, Decision("approve", BASE_F)),
            move("request_then_approve", "decides while the reconciliation is still to follow", p, Decision("approve", BASE_F),
                 request=("restatement_reconciliation",)),
        ),
    )


def x08() -> ExpertCase:
    p = package(Hand(restated=RESTATED, answers=(DELIVERED,)), "PKG-X08")
    # On the figures as first reported: 10.5m + 1.0m = 11.5m; 3.83x; 2.61x; FCCR 10.0 / 4.84 = 2.07; DSCR 9.8 / 4.84 = 2.02.
    first = figures(
        11.5 * M, 3.83, 3.83, 2.61, 2.07, 2.02, 8 * M, max_total_leverage=23.5, min_interest_coverage=30.7
    )
    return ExpertCase(
        "x08-restated-delivered", "a restated quarter, reconciled on request", ("class:approve", "edge:restatement"),
        "any restatement in the last two years -> request information first",
        p, Assessment(classes=("approve",), figures=BASE_F, ask_first=("restatement_reconciliation",)),
        golds=(move("request_then_approve", "asks, then approves on the restated figures", p, Decision("approve", BASE_F),
                    request=("restatement_reconciliation",)),),
        wrong_moves=(
            move("approve_without_asking", "the figures are right but policy says ask first", p, Decision("approve", BASE_F)),
            move("original_figures", "relies on EBITDA as first reported", p, Decision("approve", first), request=("restatement_reconciliation",)),
        ),
    )


def x09() -> ExpertCase:
    answer = BorrowerAnswer(
        item="missing_quarter", available=True, text="2024Q4 attached.", period=quarter(Hand(), 2)
    )
    p = package(Hand(drop_quarter=2, answers=(answer,)), "PKG-X09")
    return ExpertCase(
        "x09-missing-quarter-delivered", "2024Q4 missing from the TTM, delivered on request", ("class:approve", "edge:missing_quarter"),
        "a quarter missing from the TTM",
        p, Assessment(classes=("approve",), figures=BASE_F, ask_first=("missing_quarter",)),
        golds=(move("request_then_approve", "completes the TTM, then approves", p, Decision("approve", BASE_F),
                    request=("missing_quarter",), delivered=("2024Q4",)),),
        wrong_moves=(move("annualise", "annualises three quarters instead of asking", p, Decision("approve", BASE_F)),),
    )


def x10() -> ExpertCase:
    answer = BorrowerAnswer(item="missing_quarter", available=False, text="2024Q4 is not closed; to follow.")
    p = package(Hand(drop_quarter=2, answers=(answer,)), "PKG-X10")
    return ExpertCase(
        "x10-missing-quarter-pending", "2024Q4 missing and not yet closed", ("class:request_information", "edge:missing_quarter"),
        "a quarter missing from the TTM",
        p, Assessment(classes=("request_information",), ask_first=("missing_quarter",)),
        golds=(move("request", "no TTM, no decision", p, Decision("request_information"), request=("missing_quarter",)),),
        wrong_moves=(
            move("annualise", "decides on three quarters annualised", p, Decision("approve", BASE_F)),
            move("escalate", "the committee cannot decide without the quarter either", p,
                 Decision("escalate", BASE_F, reasons=("other",)), request=("missing_quarter",)),
        ),
    )


def x11() -> ExpertCase:
    synergy = AddBack(
        addback_id="AB-3",
        description="Run-rate synergies",
        category="projected_synergy",
        amount=4.0 * M,
        supported=True,
    )
    p = package(Hand(addbacks=(LEGAL, TRADE_SHOW, synergy)), "PKG-X11")
    # Synergies capped at 20% of 10.0m = 2.0m: 10.0 + 1.0 + 2.0 = 13.0m; 3.38x; 2.95x; FCCR 11.5 / 4.84 = 2.38;
    # DSCR 11.3 / 4.84 = 2.33; headroom (5.0 - 3.385) / 5.0 = 32.3%, (2.955 - 2.0) / 2.0 = 47.7%.
    f = figures(
        13 * M, 3.38, 3.38, 2.95, 2.38, 2.33, 8 * M, max_total_leverage=32.3, min_interest_coverage=47.7
    )
    # Management's 15.3m: 2.88x, 3.48x, FCCR 13.8 / 4.84 = 2.85, DSCR 13.6 / 4.84 = 2.81.
    trusting = figures(
        15.3 * M, 2.88, 2.88, 3.48, 2.85, 2.81, 8 * M, max_total_leverage=42.5, min_interest_coverage=73.9
    )
    return ExpertCase(
        "x11-addbacks-over-cap", "4.0m of synergies against a 2.0m cap", ("class:approve", "edge:addbacks_over_cap"),
        "Add-backs that are recurring, unsupported or above a cap are rejected",
        p, Assessment(classes=("approve",), figures=f),
        golds=(move("approve_capped", "synergies capped at 20% of EBITDA, the recurring cost rejected", p, Decision("approve", f)),),
        wrong_moves=(move("management_ebitda", "takes management's adjusted EBITDA whole", p, Decision("approve", trusting)),),
    )
# fmt: on


CASES_A = (x01, x02, x03, x04, x05, x06, x07, x08, x09, x10, x11)
