"""Facts only an answer gives, and when policy asks for them before deciding.

- **Compliance certificates.** Debt that stays after closing and carries maintenance covenants is
  asked for its latest compliance certificate first: a failed test its lenders have not waived is
  a default under debt that stays (it cross-defaults the new facility), so the package is
  declined; the certified principal replaces the debt table's (`adapters.credit.answers`). A
  failed leverage test the sponsor paid equity in to cure is cured only when the cure, counted up
  to the most one cure may count under the instrument's documents (`max_cure_amount`), reaches the
  cure the test needs (certified debt / level - certified EBITDA): a cure short of the shortfall,
  or one larger than the documents permit where the permitted part falls short, leaves the default.
- **Breach history.** A sponsor whose track record the fund does not hold is asked for its breach
  history first; a portfolio company's payment default that cost its lenders money is the
  sponsor's prior default (escalate), while a covenant breach that was amended, or a default
  whose lenders were repaid in full, is not.
- **Customer contracts.** A concentrated book whose largest customer's contract ends before the
  facility matures is asked for that contract first: renewed past maturity, the concentration is
  conditioned as before; notice of non-renewal given, underwriting takes the customer's EBITDA
  contribution off (and the concentration leaves with it); still being negotiated, the
  concentration goes to the investment committee.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction

from adapters.credit.models import Borrower, CreditPackage, ExistingDebt, FundPolicy, Sponsor
from envs.credit.calendar import shift
from envs.credit.cures import leverage_cure

DAYS_A_YEAR = 365


def certificates_due(package: CreditPackage) -> bool:
    """Whether debt that stays carries maintenance covenants and no certificate is in the file."""
    return any(d.maintenance_covenants and d.certificate is None for d in staying(package))


def staying(package: CreditPackage) -> tuple[ExistingDebt, ...]:
    """Existing debt the facility does not refinance."""
    return tuple(d for d in package.existing_debt if not d.refinanced)


def in_default(package: CreditPackage) -> tuple[ExistingDebt, ...]:
    """Debt that stays whose latest certificate shows a failed test the lenders did not waive and
    the sponsor did not cure."""
    return tuple(
        d
        for d in staying(package)
        if d.certificate is not None and not (d.certificate.passed or d.certificate.waived or cured(d))
    )


def _q(value: float) -> Fraction:
    return Fraction(str(value))


def cure_needed(debt: ExistingDebt) -> Fraction | None:
    """The cure the certified leverage test needs, or None when the certificate does not give it."""
    c = debt.certificate
    if c is None or c.leverage_level is None or c.covenant_debt is None or c.covenant_ebitda is None:
        return None
    return leverage_cure(_q(c.covenant_debt), _q(c.covenant_ebitda), _q(c.leverage_level))


def cure_counted(debt: ExistingDebt) -> Fraction:
    """The sponsor's cure as it counts: what was paid, up to what one cure may count."""
    paid = _q(debt.certificate.cure_paid) if debt.certificate is not None else Fraction(0)
    return paid if debt.max_cure_amount is None else min(paid, _q(debt.max_cure_amount))


def cured(debt: ExistingDebt) -> bool:
    """Whether a failed leverage test was cured: the documents grant a cure, and the cure as it
    counts reaches the cure the test needs."""
    needed = cure_needed(debt)
    c = debt.certificate
    return (
        c is not None
        and c.cure_paid > 0
        and debt.max_cure_amount is not None
        and needed is not None
        and cure_counted(debt) >= needed
    )


def history_due(sponsor: Sponsor) -> bool:
    """Whether the sponsor's breach history is needed (its record is not on file) and not received."""
    return not sponsor.record_on_file and sponsor.breach_history is None


def prior_default(sponsor: Sponsor) -> bool:
    """Whether the sponsor has a prior default: flagged, or a default in its breach history that
    cost the lenders money."""
    history = sponsor.breach_history or ()
    return sponsor.prior_default or any(
        r.kind == "payment_default" and not r.lenders_repaid_in_full for r in history
    )


def maturity(package: CreditPackage, today: date) -> date:
    """When the facility matures, from `today` and its tenor (whole months)."""
    months = round(package.term_sheet.facility.tenor_years * 12)
    year, month = shift(today.year, today.month, months)
    return date(year, month, min(today.day, 28))


def contract_due(package: CreditPackage, policy: FundPolicy, today: date) -> bool:
    """Whether the book is concentrated, its largest customer's contract ends before maturity and
    the contract is not in the file."""
    b = package.borrower
    return (
        b.largest_customer_share_pct > policy.max_customer_share_pct
        and b.largest_customer_contract_ends is not None
        and b.largest_customer_contract_ends < maturity(package, today)
        and b.largest_customer_contract is None
    )


def customer_leaving(borrower: Borrower) -> bool:
    """Whether the largest customer has given notice of non-renewal."""
    c = borrower.largest_customer_contract
    return c is not None and c.status == "notice_given"


def renewal_open(borrower: Borrower) -> bool:
    """Whether the largest customer's renewal is still being negotiated."""
    c = borrower.largest_customer_contract
    return c is not None and c.status == "in_negotiation"


def lost_ebitda(borrower: Borrower) -> float:
    """The EBITDA underwriting takes off for a customer that has given notice (0 otherwise)."""
    c = borrower.largest_customer_contract
    return c.ebitda_contribution if c is not None and c.status == "notice_given" else 0.0
