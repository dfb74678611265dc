"""The package as its flags say: what a desk that underwrites on the flags alone reads.

A flag-following desk takes an add-back as the bridge flags it (supported and not recurring means
earnings, whatever its words, its history or how far its documents tie; an equity cure filed under
another category counts), takes debt flagged refinanced as gone (no sources and uses), and asks
nothing but what the flags call for. `flagged` is that reading; `flags_hold` says whether it lands
where the reading of the whole package does, i.e. whether the package's flags tell the truth. Such a task is decided by what
the flags show and is tagged `visible:flags-hold` (the blind battery's rule allows a flag-following
desk to pass it); the generator's traps (`envs.credit.traps`) make it the exception.
"""

from __future__ import annotations

from datetime import date

from adapters.credit.models import AddBack, CreditPackage, FundPolicy
from envs.credit.assess import Assessment, ask_first, assess, decide
from envs.credit.ratios import IncompleteTtm

FLAGS_HOLD = "visible:flags-hold"
"""Tag of a task whose package's flags lead where the whole package does."""


def flag_line(line: AddBack) -> AddBack:
    """An add-back as its flags show it: its words, history and tie-out unread, an equity cure filed
    under its flag category."""
    return line.model_copy(
        update={
            "description": "Adjustment",
            "booked_in": (),
            "support_amount": None,
            "category": "non_recurring" if line.category == "equity_cure" else line.category,
        }
    )


def flagged(package: CreditPackage) -> CreditPackage:
    """The package read on its flags: add-backs' words, history and tie-out unread, refinanced debt
    gone, no sources and uses."""
    lines = tuple(flag_line(a) for a in package.bridge.addbacks)
    return package.model_copy(
        update={
            "bridge": package.bridge.model_copy(update={"addbacks": lines}),
            "existing_debt": tuple(d for d in package.existing_debt if not d.refinanced),
            "sources_and_uses": None,
        }
    )


def on_flags(package: CreditPackage, policy: FundPolicy) -> Assessment | None:
    """The flag-following desk's assessment (it asks nothing), or None without a TTM."""
    try:
        return decide(flagged(package), policy)
    except IncompleteTtm:
        return None


def _key(a: Assessment) -> tuple[object, ...]:
    return (a.classes, a.figures, a.conditions, a.max_amount, a.escalation_reasons)


def agrees(package: CreditPackage, policy: FundPolicy, today: date, right: Assessment) -> bool:
    """Whether the flags lead to `right` (the package's answer): the request they call for when the
    answer is to ask and wait, else the decision on them, asking nothing."""
    if right.classes == ("request_information",):
        return ask_first(flagged(package), policy, today) == right.ask_first
    if right.ask_first:
        return False
    found = on_flags(package, policy)
    return found is not None and _key(found) == _key(right)


def flags_hold(package: CreditPackage, policy: FundPolicy, today: date) -> bool:
    """Whether underwriting on the flags, asking nothing, reaches the whole package's assessment."""
    return agrees(package, policy, today, assess(package, policy, today))
