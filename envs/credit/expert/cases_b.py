"""Expert cases x12-x22: where policy allows more than one decision (concentration, covenant-lite,
non-positive EBITDA), the sponsor, currencies, a changed fiscal year end, existing debt, unsupported
add-backs, an old restatement and a drawn revolver. Figures are worked by hand from `build.Hand`."""

from __future__ import annotations

from datetime import date

from adapters.credit.models import AddBack, BorrowerAnswer, ExistingDebt, Flow, SourcesAndUses
from envs.credit.assess import Assessment
from envs.credit.expert.build import LEGAL, TRADE_SHOW, Hand, M, package
from envs.credit.expert.cases_a import BASE_F, cond
from envs.credit.expert.model import Decision, ExpertCase, figures, move

NO_COVENANT_F = figures(11 * M, 4.0, 4.0, 2.5, 1.96, 1.92, 8 * M)


# fmt: off
def x12() -> ExpertCase:
    contracts = BorrowerAnswer(
        item="customer_contracts", available=True, text="The master services agreement runs to 2029."
    )
    p = package(Hand(customer_share=45.0, answers=(contracts,)), "PKG-X12")
    return ExpertCase(
        "x12-concentration", "one customer is 45% of revenue", ("class:approve_with_conditions", "class:escalate", "edge:customer_concentration"),
        "revenue concentration (one customer over 30%)",
        p, Assessment(classes=("approve_with_conditions", "escalate"), figures=BASE_F, conditions=("concentration_limit",),
                      escalation_reasons=("customer_concentration",), may_ask=("customer_contracts",)),
        golds=(
            move("concentration_condition", "approve with a concentration event of default", p,
                 Decision("approve_with_conditions", BASE_F, (cond("concentration_limit", "Event of default above 30% without consent", 30.0),))),
            move("escalate", "or let the committee weigh the customer", p, Decision("escalate", BASE_F, reasons=("customer_concentration",))),
            move("contracts_first", "or read the customer's contract first, then set the limit", p,
                 Decision("approve_with_conditions", BASE_F, (cond("concentration_limit", "Event of default above 30% without consent", 30.0),)),
                 request=("customer_contracts",)),
        ),
        wrong_moves=(move("approve", "ignores the 45% customer", p, Decision("approve", BASE_F)),),
    )


def x13() -> ExpertCase:
    p = package(Hand(covenants=()), "PKG-X13")
    return ExpertCase(
        "x13-covenant-lite", "no maintenance covenant on the term sheet", ("class:approve_with_conditions", "class:escalate", "edge:covenant_lite"),
        "covenant-lite terms",
        p, Assessment(classes=("approve_with_conditions", "escalate"), figures=NO_COVENANT_F, conditions=("tighter_covenant",),
                      escalation_reasons=("covenant_lite",)),
        golds=(
            move("add_covenant", "approve with a 5.0x maintenance covenant", p,
                 Decision("approve_with_conditions", NO_COVENANT_F, (cond("tighter_covenant", "Add a total leverage covenant at 5.00x", 5.0),))),
            move("escalate", "or take covenant-lite terms to the committee", p, Decision("escalate", NO_COVENANT_F, reasons=("covenant_lite",))),
        ),
        wrong_moves=(
            move("approve", "accepts covenant-lite terms on its own authority", p, Decision("approve", NO_COVENANT_F)),
            move("memo_silent", "the memo does not say the terms are covenant-lite", p,
                 Decision("escalate", NO_COVENANT_F, reasons=("covenant_lite",),
                          memo="Adjusted EBITDA USD 11,000,000; total leverage 4.00x; interest coverage 2.50x. For the committee.")),
        ),
    )


def x14() -> ExpertCase:
    p = package(Hand(prior_default=True), "PKG-X14")
    return ExpertCase(
        "x14-sponsor-default", "the sponsor let a portfolio company default", ("class:escalate", "edge:sponsor_prior_default"),
        "a sponsor with a prior default",
        p, Assessment(classes=("escalate",), figures=BASE_F, escalation_reasons=("sponsor_prior_default",), may_ask=("breach_history",)),
        golds=(move("escalate", "the committee decides on sponsors with a default", p, Decision("escalate", BASE_F, reasons=("sponsor_prior_default",))),),
        wrong_moves=(
            move("approve", "good ratios do not clear the sponsor", p, Decision("approve", BASE_F)),
            move("vague_reason", "the committee is not told why", p, Decision("escalate", BASE_F, reasons=("other",))),
        ),
    )


def x15() -> ExpertCase:
    # EUR at 1.25: 4 x 2.0m = 8.0m + 0.8m = 8.8m EUR = 11.0m USD; capex, taxes, cash likewise: the reference figures.
    h = Hand(q_ebitda=(2.0 * M,) * 4, q_capex=0.2 * M, q_taxes=0.1 * M, q_wc=0.04 * M, cash=2.4 * M, currency="EUR", fx=1.25,
             addbacks=(LEGAL.model_copy(update={"amount": 0.8 * M}), TRADE_SHOW.model_copy(update={"amount": 0.24 * M})))
    p = package(h, "PKG-X15")
    # Unconverted: 8.8m against USD debt: 5.00x, 2.00x, FCCR (8.8 - 1.2) / 4.84 = 1.57, DSCR 7.44 / 4.84 = 1.54, liquidity 2.4 + 5.0.
    raw = figures(
        8.8 * M, 5.0, 5.0, 2.0, 1.57, 1.54, 7.4 * M, max_total_leverage=0.0, min_interest_coverage=0.0
    )
    return ExpertCase(
        "x15-currency-mismatch", "EUR earnings against a USD facility", ("class:approve_with_conditions", "edge:currency_mismatch"),
        "currency mismatch between debt and earnings",
        p, Assessment(classes=("approve_with_conditions",), figures=BASE_F, conditions=("currency_hedge",)),
        golds=(move("hedge", "approve on converted figures with a hedge", p,
                    Decision("approve_with_conditions", BASE_F, (cond("currency_hedge", "Hedge 75% of EUR earnings against USD debt service", 75.0),))),),
        wrong_moves=(
            move("approve", "leaves the FX risk open", p, Decision("approve", BASE_F)),
            move("unconverted", "divides USD debt by EUR EBITDA", p,
                 Decision("approve_with_conditions", raw, (cond("currency_hedge", "Hedge 75% of EUR earnings", 75.0),))),
        ),
    )


def x16() -> ExpertCase:
    p = package(Hand(fy_stub=True), "PKG-X16")
    # The nine-month FY2024 stub: 7.2m + 1.0m = 8.2m: 5.37x, 1.86x; a stub is no year.
    stub = figures(
        8.2 * M, 5.37, 5.37, 1.86, 1.35, 1.31, 8 * M, max_total_leverage=-7.3, min_interest_coverage=-6.8
    )
    return ExpertCase(
        "x16-fiscal-year-change", "FY2024 is a nine-month stub after a change of year end", ("class:approve", "edge:fiscal_year_change"),
        "a change of fiscal year end",
        p, Assessment(classes=("approve",), figures=BASE_F, may_ask=("fiscal_year_bridge",)),
        golds=(move("approve", "the four quarters are the TTM, whatever the year end", p, Decision("approve", BASE_F)),),
        wrong_moves=(move("stub_year", "takes the stub as the year", p, Decision("escalate", stub, reasons=("thin_covenant_headroom",))),),
    )


def x17() -> ExpertCase:
    # -2.0m + 1.0m = -1.0m: leverage not meaningful (99.0); coverage -1.0 / 4.4 = -0.23; FCCR (-1.0 - 1.0) / 4.84 = -0.41;
    # DSCR (-2.0 - 0.2) / 4.84 = -0.45; headroom (5.0 - 99.0) / 5.0 = -1880%, (-0.227 - 2.0) / 2.0 = -111.4%.
    p = package(Hand(q_ebitda=(-0.5 * M,) * 4, q_taxes=0.0), "PKG-X17")
    f = figures(
        -1 * M,
        99.0,
        99.0,
        -0.23,
        -0.41,
        -0.45,
        8 * M,
        max_total_leverage=-1880.0,
        min_interest_coverage=-111.4,
    )
    return ExpertCase(
        "x17-negative-ebitda", "adjusted EBITDA is negative", ("class:decline", "class:escalate"),
        "negative or pro-forma-only EBITDA -> decline or escalate",
        p, Assessment(classes=("decline", "escalate"), figures=f, escalation_reasons=("non_positive_ebitda",)),
        golds=(
            move("decline", "no earnings to lend against", p, Decision("decline", f)),
            move("escalate", "or the committee, if the sponsor argues a turnaround", p, Decision("escalate", f, reasons=("non_positive_ebitda",))),
        ),
        wrong_moves=(move("more_equity", "equity does not make EBITDA positive", p,
                          Decision("approve_with_conditions", f, (cond("more_equity", "Sponsor equity of at least 60%", 60.0),))),),
    )


def x18() -> ExpertCase:
    # Capex 4.0m, amortisation 5% (2.2m): FCCR (11.0 - 4.0 - 0.5) / 6.6 = 0.98; DSCR 6.3 / 6.6 = 0.95.
    p = package(Hand(q_capex=1.0 * M, amort=5.0), "PKG-X18")
    f = figures(11 * M, 4.0, 4.0, 2.5, 0.98, 0.95, 8 * M, max_total_leverage=20.0, min_interest_coverage=25.0)
    return ExpertCase(
        "x18-more-equity", "fixed charges not covered: FCCR 0.98x", ("class:approve_with_conditions",),
        "fixed-charge coverage = (EBITDA - capex - cash taxes) / (cash interest + scheduled principal)",
        p, Assessment(classes=("approve_with_conditions",), figures=f, conditions=("more_equity",)),
        golds=(move("more_equity", "more equity, less debt service", p,
                    Decision("approve_with_conditions", f, (cond("more_equity", "Sponsor equity of at least 55% of sources", 55.0),))),),
        wrong_moves=(move("approve", "misses the capex and amortisation", p, Decision("approve", f)),),
    )


def x19() -> ExpertCase:
    bank = ExistingDebt(debt_id="D-1", lender="Regional Bank", seniority="senior_secured", outstanding=20 * M, currency="USD",
                        rate_pct=6.0, annual_principal=1.0 * M, refinanced=True)
    note = ExistingDebt(debt_id="D-2", lender="Seller note", seniority="subordinated", outstanding=11 * M, currency="USD",
                        rate_pct=10.0, annual_principal=0.0)
    covenants = (("max_total_leverage", 5.0), ("min_interest_coverage", 2.0), ("max_senior_leverage", 4.0))
    # Sources and uses: the 33.0m facility and 5.0m of equity repay the 20.0m bank loan in full.
    table = SourcesAndUses(
        sources=(Flow(label="Unitranche", amount=33 * M), Flow(label="Sponsor equity", amount=5 * M)),
        uses=(Flow(label="Repay Regional Bank", amount=20 * M, debt_id="D-1"), Flow(label="Dividend recap", amount=18 * M)),
    )
    p = package(Hand(facility=33 * M, debts=(bank, note), covenants=covenants, sources_and_uses=table), "PKG-X19")  # type: ignore[arg-type]
    # 33.0m + 11.0m note = 44.0m: 4.00x; senior 33.0 / 11.0 = 3.00x; interest 3.3 + 1.1 = 4.4m; principal 0.33m:
    # FCCR 9.5 / 4.73 = 2.01; DSCR 9.3 / 4.73 = 1.97; headroom 20.0%, 25.0%, (4.0 - 3.0) / 4.0 = 25.0%.
    f = figures(
        11 * M,
        4.0,
        3.0,
        2.5,
        2.01,
        1.97,
        8 * M,
        max_total_leverage=20.0,
        min_interest_coverage=25.0,
        max_senior_leverage=25.0,
    )
    # Counting the refinanced loan: 64.0m: 5.82x, 4.82x; interest 5.6m -> 1.96x.
    double = figures(
        11 * M,
        5.82,
        4.82,
        1.96,
        1.39,
        1.36,
        8 * M,
        max_total_leverage=-16.4,
        min_interest_coverage=-1.8,
        max_senior_leverage=-20.5,
    )
    return ExpertCase(
        "x19-existing-debt", "a seller note stays, the bank loan is refinanced", ("class:approve",),
        "Total leverage = total debt / adjusted EBITDA; senior leverage likewise with senior debt",
        p, Assessment(classes=("approve",), figures=f, may_ask=("compliance_certificates",)),
        golds=(move("approve", "the note counts in total, not senior, debt; the refinanced loan in neither", p, Decision("approve", f)),),
        wrong_moves=(move("double_count", "counts the loan the facility repays", p, Decision("escalate", double, reasons=("thin_covenant_headroom",))),),
    )


def x20() -> ExpertCase:
    owner = AddBack(
        addback_id="AB-2",
        description="Founder salary above market",
        category="owner_compensation",
        amount=1.5 * M,
        supported=False,
    )
    p = package(Hand(addbacks=(LEGAL, owner)), "PKG-X20")
    # With the unsupported 1.5m: 12.5m: 3.52x, 2.84x, FCCR 11.0 / 4.84 = 2.27, DSCR 10.8 / 4.84 = 2.23.
    trusting = figures(
        12.5 * M, 3.52, 3.52, 2.84, 2.27, 2.23, 8 * M, max_total_leverage=29.6, min_interest_coverage=42.0
    )
    return ExpertCase(
        "x20-unsupported-addback", "an owner-pay add-back without evidence", ("class:approve",),
        "Add-backs that are recurring, unsupported or above a cap are rejected",
        p, Assessment(classes=("approve",), figures=BASE_F, may_ask=("addback_support", "quality_of_earnings")),
        golds=(move("approve", "approves on 11.0m, the unsupported add-back rejected", p, Decision("approve", BASE_F)),),
        wrong_moves=(
            move("accept_unsupported", "takes the founder-pay add-back on trust", p, Decision("approve", trusting)),
            move("contracts_for_no_reason", "asks for customer contracts nothing in the package calls for", p, Decision("approve", BASE_F),
                 request=("customer_contracts",)),
        ),
    )


def x21() -> ExpertCase:
    p = package(Hand(restated=(1, date(2022, 5, 1), 3.0 * M)), "PKG-X21")
    return ExpertCase(
        "x21-old-restatement", "a restatement three years ago", ("class:approve", "edge:restatement"),
        "any restatement in the last two years -> request information first",
        p, Assessment(classes=("approve",), figures=BASE_F),
        golds=(move("approve", "outside the two-year look-back: nothing to ask", p, Decision("approve", BASE_F)),),
        wrong_moves=(move("needless_request", "asks the borrower for what policy does not need", p, Decision("approve", BASE_F),
                          request=("restatement_reconciliation",)),),
    )


def x22() -> ExpertCase:
    # 2.0m of the 5.0m revolver drawn: 46.0m: 4.18x; interest 4.6m -> 2.39x; FCCR 9.5 / 5.04 = 1.88; DSCR 9.3 / 5.04 = 1.85;
    # liquidity 3.0 + 3.0 = 6.0m; headroom (5.0 - 4.18) / 5.0 = 16.4%, (2.39 - 2.0) / 2.0 = 19.6%.
    p = package(Hand(drawn=2.0 * M), "PKG-X22")
    f = figures(
        11 * M, 4.18, 4.18, 2.39, 1.88, 1.85, 6 * M, max_total_leverage=16.4, min_interest_coverage=19.6
    )
    undrawn = f.model_copy(update={"liquidity": 8 * M})
    return ExpertCase(
        "x22-drawn-revolver", "2.0m of the revolver drawn at closing", ("class:approve",),
        "Liquidity = cash + undrawn revolver",
        p, Assessment(classes=("approve",), figures=f),
        golds=(move("approve", "the drawn revolver is debt and not liquidity", p, Decision("approve", f)),),
        wrong_moves=(move("whole_revolver", "counts the whole revolver as liquidity", p, Decision("approve", undrawn)),),
    )
# fmt: on


CASES_B = (x12, x13, x14, x15, x16, x17, x18, x19, x20, x21, x22)
