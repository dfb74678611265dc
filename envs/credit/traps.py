"""Generator traps: bridge lines whose flags mislead, so that the flags alone never decide a task.

A bridge trap adds one add-back line flagged supported and not recurring, which a reading of the
whole package leaves out or cuts: a charge called one-off that was booked in earlier years too
(`recurs_across_years`), an equity cure filed as a non-recurring item (`equity_cure`), or a line
whose documents tie to only part of the amount (`support_short`). The line is large enough
(`amount_share` of reported EBITDA) that the figures a flag-following desk records fall outside the
policy's tolerance. The refinancing trap (`unfunded_refinancing`) flags a bank loan as refinanced
by the facility with no sources and uses in the package; asked for, the table shows the facility
repays only part of it, so the rest stays in total debt. A package gets one trap with probability `share`; the words, shares and source
are data (`traps.json`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from adapters.credit.models import (
    AddBack,
    AddBackCategory,
    BorrowerAnswer,
    CreditPackage,
    ExistingDebt,
    Flow,
    SourcesAndUses,
)

DATA = Path(__file__).with_name("traps.json")


@cache
def _data() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DATA.read_text())
    return found


def _with_line(
    p: CreditPackage,
    rng: random.Random,
    trap: str,
    category: AddBackCategory = "non_recurring",
    **fields: Any,
) -> CreditPackage:
    data = _data()
    bridge = p.bridge
    amount = round(abs(bridge.reported_ebitda) * rng.uniform(*data["amount_share"]), -3)
    line = AddBack(
        addback_id=f"AB-{len(bridge.addbacks) + 1}",
        description=rng.choice(data["traps"][trap]),
        category=category,
        amount=amount,
        supported=True,
        **{k: (v(amount) if callable(v) else v) for k, v in fields.items()},
    )
    return with_addback(p, line)


def with_addback(p: CreditPackage, line: AddBack) -> CreditPackage:
    """The package with one more add-back line on its EBITDA bridge (management's adjusted figure
    raised by its amount)."""
    bridge = p.bridge
    new = bridge.model_copy(
        update={
            "addbacks": (*bridge.addbacks, line),
            "management_adjusted_ebitda": bridge.management_adjusted_ebitda + line.amount,
        }
    )
    return p.model_copy(update={"bridge": new})


def recurs_across_years(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """A 'one-off' charge the bridges of the earlier fiscal years carried too."""
    years = sorted((x for x in p.periods if x.kind == "FY"), key=lambda x: x.end)
    return _with_line(p, rng, "recurs_across_years", booked_in=tuple(y.label for y in years[:-1]))


def equity_cure(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """Sponsor cash that cured a covenant, added back as a non-recurring item."""
    return _with_line(p, rng, "equity_cure")


def support_short(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """A supported one-off whose documents tie to only part of the amount."""
    low, high = _data()["tie_share"]
    share = rng.uniform(low, high)
    return _with_line(p, rng, "support_short", support_amount=lambda amount: round(amount * share, -3))


def unfunded_refinancing(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """A loan flagged refinanced, no sources and uses in the package; the table the borrower sends
    on request repays only part of it."""
    data = _data()["refinancing"]
    facility = p.term_sheet.facility
    loan = next((d for d in p.existing_debt if d.refinanced), None)
    if loan is None:
        owed = round(facility.amount * rng.uniform(*data["share_of_facility"]), -3)
        loan = ExistingDebt(
            debt_id=f"D-{len(p.existing_debt) + 1}",
            lender="Regional Bank",
            seniority="senior_secured",
            outstanding=owed,
            currency=facility.currency,
            rate_pct=6.5,
            annual_principal=round(owed * 0.05, -3),
            refinanced=True,
        )
        p = p.model_copy(update={"existing_debt": (*p.existing_debt, loan)})
    short = round(loan.outstanding * rng.uniform(*data["short_share"]), -3)
    table = SourcesAndUses(
        sources=(Flow(label="Facility", amount=facility.amount),),
        uses=(
            Flow(label=f"Repay {loan.lender}", amount=loan.outstanding, debt_id=loan.debt_id),
            Flow(
                label="Purchase price and fees", amount=max(facility.amount - loan.outstanding + short, 0.0)
            ),
        ),
    )
    answer = BorrowerAnswer(
        item="sources_and_uses", available=True, text=data["answer"], sources_and_uses=table
    )
    return p.model_copy(update={"sources_and_uses": None, "answers": (*p.answers, answer)})


TRAPS: dict[str, Callable[[CreditPackage, random.Random], CreditPackage]] = {
    "recurs_across_years": recurs_across_years,
    "equity_cure": equity_cure,
    "support_short": support_short,
    "unfunded_refinancing": unfunded_refinancing,
}
"""The traps by name."""


def set_trap(p: CreditPackage, rng: random.Random) -> tuple[CreditPackage, str | None]:
    """The package with one trap (probability `share`), and the trap's name."""
    if rng.random() >= _data()["share"]:
        return p, None
    name = rng.choice(sorted(TRAPS))
    return TRAPS[name](p, rng), name
