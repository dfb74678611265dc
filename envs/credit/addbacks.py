"""Add-backs judged as a senior associate reads them: by description and history, not by flags.

An add-back is left out when it is an equity cure (sponsor cash injected to cure a covenant is not
earnings, whatever its category), when it recurs (flagged so, described so, or booked in
`policy.recurrence_years` earlier fiscal years), or when nothing supports it; a supported one is
taken as far as its documents tie to the amount. Every verdict carries its reason. The words that
mark a recurring cost or an equity cure are data (`addback_terms.json`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path

from adapters.credit.models import AddBack, FundPolicy

TERMS = Path(__file__).with_name("addback_terms.json")


@dataclass(frozen=True)
class AddBackVerdict:
    """What an add-back line contributes and why."""

    addback_id: str
    accepted: Fraction
    """Amount taken into adjusted EBITDA, in the bridge's currency (before any synergy cap)."""
    reason: str


@cache
def _terms() -> dict[str, re.Pattern[str]]:
    raw = json.loads(TERMS.read_text())
    return {kind: re.compile("|".join(raw[kind]), re.IGNORECASE) for kind in ("recurring", "equity_cure")}


def judge(addback: AddBack, policy: FundPolicy) -> AddBackVerdict:
    """The verdict on one line."""
    amount = Fraction(str(addback.amount))

    def no(why: str) -> AddBackVerdict:
        return AddBackVerdict(addback.addback_id, Fraction(0), f"{addback.addback_id}: left out, {why}")

    if addback.category == "equity_cure" or _terms()["equity_cure"].search(addback.description):
        return no("an equity cure is sponsor cash, not earnings")
    if addback.recurring or addback.category == "recurring_cost":
        return no("the cost is recurring")
    if _terms()["recurring"].search(addback.description):
        return no(f"its description says it recurs ({addback.description!r})")
    if len(addback.booked_in) >= policy.recurrence_years:
        return no(f"booked in {', '.join(addback.booked_in)} as well, so recurring whatever it is called")
    if not addback.supported:
        return no("nothing supports it")
    if addback.support_amount is not None and Fraction(str(addback.support_amount)) < amount:
        tied = Fraction(str(addback.support_amount))
        return AddBackVerdict(
            addback.addback_id,
            tied,
            f"{addback.addback_id}: taken at {float(tied):,.0f} of {addback.amount:,.0f}, "
            "as far as the documents tie",
        )
    return AddBackVerdict(addback.addback_id, amount, f"{addback.addback_id}: taken, a supported one-off")
