"""Sources and uses: debt "refinanced" by the facility is retired only as far as the sources cover it.

Each use that names a `debt_id` repays that debt, up to what is outstanding. When the uses exceed
the sources, the shortfall comes off the repayments first (the last one listed first): money that
is not raised repays nothing. What a refinancing leaves unpaid stays in total debt, at the debt's
rate, seniority and a pro-rata share of its scheduled principal. Without a sources-and-uses table
nothing flagged refinanced can be counted as repaid, so the deal team asks for it first.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from adapters.credit.models import ExistingDebt, SourcesAndUses


def _q(value: float) -> Fraction:
    return Fraction(str(value))


def repaid(debts: Sequence[ExistingDebt], table: SourcesAndUses | None) -> dict[str, Fraction]:
    """The amount of each refinanced debt the sources repay at closing (0 without a table)."""
    if table is None:
        return {d.debt_id: Fraction(0) for d in debts if d.refinanced}
    outstanding = {d.debt_id: _q(d.outstanding) for d in debts if d.refinanced}
    asked = [
        (u.debt_id, min(_q(u.amount), outstanding[u.debt_id])) for u in table.uses if u.debt_id in outstanding
    ]
    shortfall = max(
        Fraction(0),
        sum((_q(u.amount) for u in table.uses), Fraction(0))
        - sum((_q(s.amount) for s in table.sources), Fraction(0)),
    )
    paid: dict[str, Fraction] = dict.fromkeys(outstanding, Fraction(0))
    for debt_id, amount in reversed(asked):
        cut = min(amount, shortfall)
        shortfall -= cut
        paid[debt_id] += amount - cut
    return {k: min(v, outstanding[k]) for k, v in paid.items()}


def remaining(
    debts: Sequence[ExistingDebt], table: SourcesAndUses | None
) -> list[tuple[ExistingDebt, Fraction]]:
    """Each existing debt with the share of it still owed after closing (1 for a debt kept, 0 for
    one repaid in full)."""
    paid = repaid(debts, table)
    out: list[tuple[ExistingDebt, Fraction]] = []
    for d in debts:
        owed = _q(d.outstanding)
        if not d.refinanced or owed == 0:
            out.append((d, Fraction(1) if not d.refinanced else Fraction(0)))
            continue
        out.append((d, (owed - paid[d.debt_id]) / owed))
    return out


def unfunded_refinancing(debts: Sequence[ExistingDebt], table: SourcesAndUses | None) -> bool:
    """Whether a debt is flagged refinanced and no table says what repays it."""
    return table is None and any(d.refinanced and d.outstanding > 0 for d in debts)
