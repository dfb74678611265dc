"""Fund policy applied to a package: the acceptable decision classes and what each needs.

`assess` is what a senior associate signs off: from the figures and the package's flags it gives
every decision class the policy allows, the conditions an approval must carry, the reasons an
escalation must give, and the information to ask for first. Where the policy leaves a choice
(covenant-lite terms, customer concentration, non-positive EBITDA), more than one class is right.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

from adapters.credit.answers import answered_all
from adapters.credit.models import AddBack, CreditPackage, FundPolicy
from adapters.credit.records import ConditionKind, DecisionClass, EscalationReason, Figures, InformationItem
from envs.credit.addbacks import judge
from envs.credit.covenants import breached, cures_beyond_policy, restructured_amount, thin
from envs.credit.diligence import (
    certificates_due,
    contract_due,
    customer_leaving,
    history_due,
    in_default,
    prior_default,
    renewal_open,
)
from envs.credit.ratios import (
    Inputs,
    exact,
    inputs_for,
    max_amount_for,
    missing_quarter,
    q,
    restated_recently,
    rounded,
    stale_ttm,
)
from envs.credit.refinancing import unfunded_refinancing


@dataclass(frozen=True)
class Assessment:
    """The policy's answer for one package."""

    classes: tuple[DecisionClass, ...]
    """Acceptable decision classes, the preferred one first."""
    figures: Figures | None = None
    """The right figures; None when the TTM cannot be built."""
    conditions: tuple[ConditionKind, ...] = ()
    """Conditions an approval with conditions must carry."""
    max_amount: float | None = None
    """Largest facility amount within the target leverage (for a lower-amount condition)."""
    escalation_reasons: tuple[EscalationReason, ...] = ()
    """Reasons an escalation must name."""
    ask_first: tuple[InformationItem, ...] = ()
    """Information to request before any decision."""
    may_ask: tuple[InformationItem, ...] = ()
    """Information an analyst may reasonably ask for too (customer contracts for a concentrated
    book, support for unsupported add-backs, a bridge across a short fiscal year)."""
    flags: tuple[str, ...] = field(default=())
    """Edge facts found, for tags and memos."""
    addback_reasons: tuple[str, ...] = ()
    """Why each add-back was taken, cut or left out (`AB-1: ...`)."""


def inputs_of(package: CreditPackage, policy: FundPolicy) -> Inputs:
    """The computation inputs of a package as it stands."""
    return inputs_for(package, policy)


def ask_first(package: CreditPackage, policy: FundPolicy, today: date) -> tuple[InformationItem, ...]:
    """What must be requested before deciding on the package as delivered."""
    items: list[InformationItem] = []
    if restated_recently(package.periods, today, policy.restatement_lookback_years):
        items.append("restatement_reconciliation")
    if missing_quarter(package.periods):
        items.append("missing_quarter")
    elif stale_ttm(package.periods, today, policy.reporting_lag_days):
        items.append("latest_quarter")
    if unfunded_refinancing(package.existing_debt, package.sources_and_uses):
        items.append("sources_and_uses")
    if qoe_decides(package, policy):
        items.append("quality_of_earnings")
    # Answers only the borrower can give, on which the decision turns (`envs.credit.diligence`).
    if certificates_due(package):
        items.append("compliance_certificates")
    if history_due(package.sponsor):
        items.append("breach_history")
    if contract_due(package, policy, today):
        items.append("customer_contracts")
    return tuple(items)


def open_support(addback: AddBack, policy: FundPolicy) -> bool:
    """Whether the line is left out only for want of support (supported, it would count)."""
    return (
        not addback.supported and judge(addback.model_copy(update={"supported": True}), policy).accepted > 0
    )


def qoe_decides(package: CreditPackage, policy: FundPolicy) -> bool:
    """Whether support for the unsupported add-backs would change the decision: then the
    quality-of-earnings report is asked for before deciding (its answer decides), not after."""
    lines = package.bridge.addbacks
    if not any(open_support(a, policy) for a in lines) or missing_quarter(package.periods):
        return False
    supported = tuple(
        a.model_copy(update={"supported": True}) if open_support(a, policy) else a for a in lines
    )
    if_supported = package.model_copy(
        update={"bridge": package.bridge.model_copy(update={"addbacks": supported})}
    )
    now, then = decide(package, policy), decide(if_supported, policy)
    return (now.classes, now.conditions) != (then.classes, then.conditions)


def may_ask(package: CreditPackage, policy: FundPolicy) -> tuple[InformationItem, ...]:
    """What an analyst may ask for on top of what policy says to ask first."""
    items: list[InformationItem] = []
    if package.borrower.largest_customer_share_pct > policy.max_customer_share_pct:
        items.append("customer_contracts")
    if any(not a.supported and not a.recurring for a in package.bridge.addbacks):
        items += ["addback_support", *(() if qoe_decides(package, policy) else ("quality_of_earnings",))]
    if prior_default(package.sponsor) or not package.sponsor.record_on_file:
        items.append("breach_history")
    if any(not d.refinanced for d in package.existing_debt):
        items.append("compliance_certificates")
    if any(p.kind == "FY" and p.months < 12 for p in package.periods):
        items.append("fiscal_year_bridge")
    return tuple(items)


def after_answers(package: CreditPackage, items: tuple[InformationItem, ...]) -> CreditPackage:
    """The package once the borrower answered `items` (what the answers deliver joins it)."""
    return answered_all(package, items)


def assess(package: CreditPackage, policy: FundPolicy, today: date) -> Assessment:
    """The acceptable classes for `package` under `policy`."""
    items = ask_first(package, policy, today)
    optional = tuple(i for i in may_ask(package, policy) if i not in items)
    answers = {a.item: a for a in package.answers}
    if any(not (answers.get(i) and answers[i].available) for i in items):
        return Assessment(classes=("request_information",), ask_first=items, may_ask=optional, flags=items)
    worked = after_answers(package, items)
    return replace(decide(worked, policy, items), may_ask=optional)


def decide(package: CreditPackage, policy: FundPolicy, items: tuple[InformationItem, ...] = ()) -> Assessment:
    """The classes for a package whose information is complete (`items`: what was asked first)."""
    inputs = inputs_of(package, policy)
    e = exact(inputs)
    f = rounded(e)
    judged = tuple(judge(a, policy).reason for a in package.bridge.addbacks)
    base = Assessment(classes=(), figures=f, ask_first=items, addback_reasons=judged)
    # Every threshold is compared on the exact figures; `f` is only what the memo shows.
    if e.adjusted_ebitda <= 0 or e.reported_ebitda <= 0:
        # Positive only after add-backs is a pro-forma-only case: the same as no earnings.
        only = ("pro_forma_only_ebitda",) if e.adjusted_ebitda > 0 else ()
        return replace(
            base,
            classes=("decline", "escalate"),
            escalation_reasons=("non_positive_ebitda",),
            flags=("non_positive_ebitda", *only),
        )
    if in_default(package):
        # A failed, unwaived test under debt that stays: a default at closing.
        return replace(base, classes=("decline",), flags=("existing_debt_in_default",))
    if e.total_leverage > q(policy.decline_total_leverage) or e.interest_coverage < q(
        policy.decline_interest_coverage
    ):
        return replace(base, classes=("decline",), flags=("beyond_policy",))
    facility = package.term_sheet.facility
    if breached(e, facility):
        # Breached on day one: declined, or restructured to an amount every covenant can carry.
        amount = restructured_amount(inputs)
        flags = ("covenant_breached_at_closing",)
        if amount is None:
            return replace(base, classes=("decline",), flags=flags)
        return replace(
            base,
            classes=("decline", "approve_with_conditions"),
            conditions=("lower_amount",),
            max_amount=amount,
            flags=flags,
        )
    reasons: list[EscalationReason] = []
    # Within policy only on adjusted EBITDA: the committee (or a decline), never an approval on
    # add-backs alone.
    dependent = e.total_debt / e.reported_ebitda > q(policy.decline_total_leverage)
    if dependent:
        reasons.append("addback_dependent_earnings")
    if e.total_leverage > q(policy.escalate_total_leverage):
        reasons.append("leverage_above_policy")
    if thin(e, facility, policy):
        reasons.append("thin_covenant_headroom")
    if prior_default(package.sponsor):
        reasons.append("sponsor_prior_default")
    # A customer that has given notice leaves the book (its EBITDA is already off); one whose
    # renewal is still open goes to the committee, not to a concentration limit.
    concentrated = package.borrower.largest_customer_share_pct > policy.max_customer_share_pct and not (
        customer_leaving(package.borrower)
    )
    if concentrated and renewal_open(package.borrower):
        reasons.append("customer_concentration")
    if reasons:
        escalate: tuple[DecisionClass, ...] = ("escalate", "decline") if dependent else ("escalate",)
        return replace(base, classes=escalate, escalation_reasons=tuple(reasons), flags=tuple(reasons))
    conditions: list[ConditionKind] = []
    max_amount: float | None = None
    if e.total_leverage > q(policy.target_total_leverage):
        conditions.append("lower_amount")
        max_amount = max_amount_for(inputs, policy.target_total_leverage)
    if e.fixed_charge_coverage < q(policy.min_fccr):
        conditions.append("more_equity")
    if package.borrower.reporting_currency != package.term_sheet.facility.currency:
        conditions.append("currency_hedge")
    alternatives: list[EscalationReason] = []
    if package.term_sheet.covenant_lite or cures_beyond_policy(package.term_sheet.covenants, policy):
        # No covenant, or one the sponsor may cure more often than policy allows: tighter terms.
        conditions.append("tighter_covenant")
    if package.term_sheet.covenant_lite:
        alternatives.append("covenant_lite")
    if concentrated:
        conditions.append("concentration_limit")
        alternatives.append("customer_concentration")
    if not conditions:
        return replace(base, classes=("approve",))
    classes: tuple[DecisionClass, ...] = (
        ("approve_with_conditions", "escalate") if alternatives else ("approve_with_conditions",)
    )
    return replace(
        base,
        classes=classes,
        conditions=tuple(conditions),
        max_amount=max_amount,
        escalation_reasons=tuple(alternatives),
        flags=tuple(conditions),
    )
