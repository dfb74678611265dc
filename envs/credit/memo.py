"""What the reference analyst writes: conditions, memos and requests, from the figures."""

from __future__ import annotations

from typing import Any

from adapters.credit.models import CreditPackage, ExistingDebt, FundPolicy
from adapters.credit.records import ConditionKind, Figures, InformationItem
from envs.credit.diligence import cure_counted, cure_needed, cured, prior_default

ITEM_WORDS: dict[str, str] = {
    "restatement_reconciliation": "a reconciliation of the restated figures to those first reported",
    "missing_quarter": "the missing quarter's management accounts, so the trailing twelve months are complete",
    "addback_support": "support for the add-backs in the EBITDA bridge",
    "customer_contracts": "the main customer contracts",
    "fiscal_year_bridge": "a bridge across the change of fiscal year end",
    "sources_and_uses": "the sources and uses of funds at closing, showing what repays the debt to be refinanced",
    "latest_quarter": "the latest quarter's management accounts, as the trailing twelve months are stale",
    "quality_of_earnings": "the quality-of-earnings report on the add-backs",
    "compliance_certificates": "the latest compliance certificates under the existing debt",
    "breach_history": "the covenant breach history, with any waiver or amendment",
}
METRIC_WORDS: dict[str, str] = {
    "max_total_leverage": "total leverage covenant",
    "max_senior_leverage": "senior leverage covenant",
    "min_interest_coverage": "interest coverage covenant",
    "min_fccr": "fixed-charge coverage covenant",
    "min_liquidity": "liquidity covenant",
}


def money(ccy: str, amount: float) -> str:
    """`USD 12,345,000`."""
    return f"{ccy} {amount:,.0f}"


def request_message(package_id: str, items: tuple[InformationItem, ...]) -> str:
    """The request as the borrower reads it."""
    wanted = "; ".join(ITEM_WORDS[i] for i in items)
    return f"For package {package_id}, before we can take a credit view please send: {wanted}."


def condition(
    kind: ConditionKind, package: CreditPackage, f: Figures, policy: FundPolicy, max_amount: float | None
) -> dict[str, Any]:
    """One condition of an approval, as `record_recommendation` takes it."""
    ccy = package.term_sheet.facility.currency
    if kind == "lower_amount":
        value = float(max_amount or 0)
        detail = f"Reduce the facility to {money(ccy, value)} so total leverage is at most {policy.target_total_leverage:.1f}x"
    elif kind == "more_equity":
        value = min(package.term_sheet.equity_contribution_pct + 10, 100.0)
        detail = f"Sponsor equity of at least {value:.0f}% of sources, so fixed charges are covered"
    elif kind == "currency_hedge":
        value = 75.0
        detail = (
            f"Hedge at least 75% of {package.borrower.reporting_currency} earnings against {ccy} debt service"
        )
    elif kind == "tighter_covenant" and package.term_sheet.covenants:
        value = float(policy.max_equity_cures)
        detail = (
            f"Limit equity cures to {policy.max_equity_cures} over the facility's life, no more than two in any "
            "four consecutive quarters, each no larger than the amount needed to cure"
        )
    elif kind == "tighter_covenant":
        value = round(f.total_leverage * 1.25, 2)
        detail = f"Add a maintenance total leverage covenant at {value:.2f}x, tested quarterly"
    else:
        value = policy.max_customer_share_pct
        detail = f"Event of default if the largest customer's share of revenue exceeds {value:.0f}% without consent"
    return {"kind": kind, "detail": detail, "value": value}


def _certified(d: ExistingDebt) -> str:
    """What a certificate shows, in words (with the cure, as it counts, against the cure needed)."""
    c = d.certificate
    assert c is not None
    if c.passed:
        return "every test passed"
    if c.waived:
        return "a missed test the lenders waived"
    needed = cure_needed(d)
    if c.cure_paid > 0 and needed is not None:
        counted = float(cure_counted(d))
        paid = f"sponsor equity of {money(d.currency, c.cure_paid)} paid in"
        need = f"{money(d.currency, float(needed))} needed"
        if cured(d):
            return f"a missed leverage test, cured: {paid}, {need}"
        if counted < c.cure_paid:
            return (
                f"a missed leverage test: {paid}, of which only {money(d.currency, counted)} may count under "
                f"its documents, short of the {need}; a default under debt that stays"
            )
        return f"a missed leverage test: {paid}, short of the {need}; a default under debt that stays"
    return "a missed test the lenders have not waived, a default under debt that stays"


def diligence(package: CreditPackage) -> list[str]:
    """What the answers received establish, as the memo states it (certificates, the sponsor's
    breach history, the largest customer's contract)."""
    lines = []
    for d in package.existing_debt:
        c = d.certificate
        if c is None:
            continue
        lines.append(
            f"Compliance certificate for the {d.lender} loan at {c.period_end.isoformat()}: {_certified(d)}; "
            f"principal outstanding {money(d.currency, c.outstanding)}."
        )
    history = package.sponsor.breach_history
    if history is not None:
        events = "; ".join(
            f"{r.company} {r.year}, {r.kind.replace('_', ' ')}, {r.resolution}" for r in history
        )
        verdict = (
            "a prior default that cost lenders money"
            if prior_default(package.sponsor)
            else "no loss to lenders"
        )
        lines.append(f"Sponsor breach history: {events or 'none'} ({verdict}).")
    contract = package.borrower.largest_customer_contract
    if contract is not None:
        words = {
            "renewed": f"is renewed to {contract.ends.isoformat()}",
            "notice_given": (
                f"has given notice to end its contract on {contract.ends.isoformat()}; its contribution of "
                f"{money(package.borrower.reporting_currency, contract.ebitda_contribution)} to earnings is taken off"
            ),
            "in_negotiation": (
                f"has a contract ending {contract.ends.isoformat()}, terms for a further term still being negotiated"
            ),
        }[contract.status]
        lines.append(f"The largest customer, {contract.customer}, {words}.")
    return lines


def memo(package: CreditPackage, f: Figures, decision: str, why: str) -> str:
    """The credit memo: the figures relied on, the covenant headroom, the decision and why."""
    ccy = package.term_sheet.facility.currency
    lines = [
        f"{package.borrower.name} ({package.borrower.industry}), sponsor {package.sponsor.name}: "
        f"{money(ccy, package.term_sheet.facility.amount)} {package.term_sheet.facility.kind.replace('_', ' ')}.",
        f"Adjusted TTM EBITDA {money(ccy, f.adjusted_ebitda)}; total leverage {f.total_leverage:.2f}x, "
        f"senior leverage {f.senior_leverage:.2f}x, interest coverage {f.interest_coverage:.2f}x, "
        f"FCCR {f.fixed_charge_coverage:.2f}x, DSCR {f.dscr:.2f}x, liquidity {money(ccy, f.liquidity)}.",
    ]
    if f.covenant_headroom:
        rows = ", ".join(f"{METRIC_WORDS[h.metric]} {h.headroom_pct:.1f}%" for h in f.covenant_headroom)
        lines.append(f"Covenant headroom: {rows}.")
    else:
        lines.append("Covenant headroom: none to measure, the terms are covenant-lite.")
    lines += diligence(package)
    lines.append(f"Recommendation: {decision.replace('_', ' ')}. {why}")
    return " ".join(lines)
