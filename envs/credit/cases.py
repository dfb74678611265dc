"""Case recipes: the base distribution (one recipe per way a package lands in a decision class)
and the held-out edge families (a transform over a drawn package).

A base recipe draws around its `Knobs` until fund policy puts the package in the recipe's class
(and, for an approval with conditions, the recipe's condition); an edge family takes a drawn
package and adds the brief's edge fact to it, and fund policy says what follows from it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from adapters.credit.models import BorrowerAnswer, CreditPackage, Currency, FinancialPeriod, FundPolicy
from envs.credit.assess import Assessment, assess
from envs.credit.calendar import period_bounds
from envs.credit.cures import cure_rights
from envs.credit.diligence_cases import breach_history_decides, certificate_decides, customer_contract_decides
from envs.credit.qoe import qoe_decides
from envs.credit.traps import set_trap, with_addback
from envs.credit.worldgen import TODAY, Knobs, draw

ATTEMPTS = 60


@dataclass(frozen=True)
class Recipe:
    """A base case: knobs, an optional package transform, and the class policy must give it."""

    name: str
    klass: str
    knobs: Knobs
    condition: str | None = None
    transform: Callable[[CreditPackage, random.Random], CreditPackage] | None = None


def _restated_pending(p: CreditPackage, rng: random.Random) -> CreditPackage:
    return restate(p, rng, available=False)


BASE: tuple[Recipe, ...] = (
    Recipe("approve", "approve", Knobs()),
    Recipe(
        "conditions:lower_amount",
        "approve_with_conditions",
        Knobs(leverage=(5.2, 5.9), rate_pct=(6.5, 8.0), capex_share=(0.04, 0.1), amortisation_pct=(1.0, 1.2)),
        condition="lower_amount",
    ),
    Recipe(
        "conditions:more_equity",
        "approve_with_conditions",
        Knobs(
            leverage=(3.6, 4.6), rate_pct=(9.0, 10.5), capex_share=(0.45, 0.6), amortisation_pct=(4.0, 6.0)
        ),
        condition="more_equity",
    ),
    Recipe("decline:leverage", "decline", Knobs(leverage=(7.9, 9.5), rate_pct=(5.5, 6.5))),
    Recipe("decline:coverage", "decline", Knobs(leverage=(4.9, 5.7), rate_pct=(12.5, 14.0))),
    Recipe("decline:negative_ebitda", "decline", Knobs(negative_ebitda=True)),
    Recipe(
        "escalate:leverage",
        "escalate",
        Knobs(leverage=(6.2, 7.2), rate_pct=(6.0, 7.5), capex_share=(0.04, 0.1)),
    ),
    Recipe("escalate:headroom", "escalate", Knobs(headroom=(0.04, 0.12))),
    Recipe("information:restatement", "request_information", Knobs(), transform=_restated_pending),
)
"""The base recipes; each yields the same number of tasks."""


def base_case(
    recipe: Recipe, rng: random.Random, package_id: str, policy: FundPolicy
) -> tuple[CreditPackage, Assessment]:
    """A package the policy puts in the recipe's class (and condition), most of them carrying a
    trap whose flags mislead (`envs.credit.traps`)."""
    for _ in range(ATTEMPTS):
        package = draw(rng, package_id, recipe.knobs, policy)
        if recipe.transform is not None:
            package = recipe.transform(package, rng)
        package, _ = set_trap(package, rng)
        found = assess(package, policy, TODAY)
        if found.classes[0] == recipe.klass and (
            recipe.condition is None or found.conditions == (recipe.condition,)
        ):
            return package, found
    raise RuntimeError(f"recipe {recipe.name} found no package in {ATTEMPTS} draws")


def _ttm(p: CreditPackage) -> list[FinancialPeriod]:
    return sorted((x for x in p.periods if x.kind == "Q"), key=lambda x: x.end)[-4:]


def _replace(
    p: CreditPackage, old: FinancialPeriod, new: FinancialPeriod | None
) -> tuple[FinancialPeriod, ...]:
    return tuple(
        new if x is old and new is not None else x for x in p.periods if not (x is old and new is None)
    )


def restate(p: CreditPackage, rng: random.Random, *, available: bool = True) -> CreditPackage:
    """A TTM quarter restated within the look-back; the reconciliation delivered or to follow."""
    quarter = _ttm(p)[rng.randint(0, 2)]
    original = round(quarter.income.ebitda * rng.uniform(1.12, 1.3), -3)
    restated = quarter.model_copy(
        update={
            "restated": True,
            "restated_on": TODAY - timedelta(days=rng.randint(20, 300)),
            "original_ebitda": original,
        }
    )
    answer = reconciliation(restated, available=available)
    return p.model_copy(update={"periods": _replace(p, quarter, restated), "answers": (*p.answers, answer)})


def reconciliation(restated: FinancialPeriod, *, available: bool) -> BorrowerAnswer:
    """The borrower's answer on the restatement of `restated`: delivered, or with the auditors."""
    text = (
        f"{restated.label} was restated after the auditors moved revenue on multi-year contracts to ratable "
        f"recognition; EBITDA of {restated.original_ebitda or 0:,.0f} as first reported is "
        f"{restated.income.ebitda:,.0f} restated, and the restated figures are final."
        if available
        else "The restatement reconciliation is with the auditors and will follow in three to four weeks."
    )
    return BorrowerAnswer(item="restatement_reconciliation", available=available, text=text)


def fiscal_year_change(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """The latest fiscal year is a nine-month stub after a change of fiscal year end."""
    years = sorted((x for x in p.periods if x.kind == "FY"), key=lambda x: x.end)
    latest = years[-1]
    start, end = period_bounds(latest.end.year, latest.end.month, 9)
    stub = latest.model_copy(
        update={
            "start": start,
            "end": end,
            "months": 9,
            "income": latest.income.model_copy(
                update={k: round(v * 0.75, -3) for k, v in latest.income.model_dump().items()}
            ),
            "cash_flow": latest.cash_flow.model_copy(
                update={k: round(v * 0.75, -3) for k, v in latest.cash_flow.model_dump().items()}
            ),
        }
    )
    answer = BorrowerAnswer(
        item="fiscal_year_bridge",
        available=True,
        text=f"The fiscal year end moved; {latest.label} is a nine-month stub. The quarters give the TTM.",
    )
    return p.model_copy(update={"periods": _replace(p, latest, stub), "answers": (*p.answers, answer)})


def missing_quarter(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """A quarter inside the TTM is missing; the borrower delivers it on request, or it is to follow."""
    quarter = _ttm(p)[rng.randint(1, 2)]
    available = rng.random() < 0.7
    text = (
        f"{quarter.label} management accounts attached."
        if available
        else f"{quarter.label} is not closed yet; to follow."
    )
    answer = BorrowerAnswer(
        item="missing_quarter", available=available, text=text, period=quarter if available else None
    )
    return p.model_copy(update={"periods": _replace(p, quarter, None), "answers": (*p.answers, answer)})


def addbacks_over_cap(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """Management adds back projected synergies well above the policy cap."""
    from adapters.credit.models import AddBack

    bridge = p.bridge
    amount = round(abs(bridge.reported_ebitda) * rng.uniform(0.3, 0.5), -3)
    line = AddBack(
        addback_id=f"AB-{len(bridge.addbacks) + 1}",
        description="Run-rate synergies from the planned add-on",
        category="projected_synergy",
        amount=amount,
        supported=True,
    )
    return with_addback(p, line)


def customer_concentration(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """One customer is well above the policy's share of revenue."""
    borrower = p.borrower.model_copy(update={"largest_customer_share_pct": round(rng.uniform(33, 60), 1)})
    return p.model_copy(update={"borrower": borrower})


def covenant_lite(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """The term sheet carries no maintenance covenant."""
    return p.model_copy(
        update={"term_sheet": p.term_sheet.model_copy(update={"covenants": (), "covenant_lite": True})}
    )


def sponsor_prior_default(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """The sponsor has a prior default."""
    sponsor = p.sponsor.model_copy(
        update={
            "prior_default": True,
            "default_note": f"A {rng.choice(('2019', '2020', '2021'))} portfolio company defaulted on its unitranche",
        }
    )
    return p.model_copy(update={"sponsor": sponsor})


def currency_mismatch(p: CreditPackage, rng: random.Random) -> CreditPackage:
    """Earnings in another currency than the USD facility."""
    ccy: Currency = rng.choice(("EUR", "GBP", "CAD"))
    rate = {
        "EUR": round(rng.uniform(1.05, 1.15), 4),
        "GBP": round(rng.uniform(1.22, 1.32), 4),
        "CAD": round(rng.uniform(0.70, 0.76), 4),
    }[ccy]

    def local(x: FinancialPeriod) -> FinancialPeriod:
        def conv(model: object) -> dict[str, float]:
            return {k: round(v / rate, -3) for k, v in model.model_dump().items()}  # type: ignore[attr-defined]

        return x.model_copy(
            update={
                "currency": ccy,
                "income": x.income.model_copy(update=conv(x.income)),
                "balance": x.balance.model_copy(update=conv(x.balance)),
                "cash_flow": x.cash_flow.model_copy(update=conv(x.cash_flow)),
            }
        )

    bridge = p.bridge.model_copy(
        update={
            "currency": ccy,
            "reported_ebitda": sum(q.income.ebitda for q in map(local, _ttm(p))),
            "addbacks": tuple(
                a.model_copy(
                    update={
                        "amount": round(a.amount / rate, -3),
                        "support_amount": None
                        if a.support_amount is None
                        else round(a.support_amount / rate, -3),
                    }
                )
                for a in p.bridge.addbacks
            ),
        }
    )
    bridge = bridge.model_copy(
        update={"management_adjusted_ebitda": bridge.reported_ebitda + sum(a.amount for a in bridge.addbacks)}
    )
    borrower = p.borrower.model_copy(update={"reporting_currency": ccy})
    return p.model_copy(
        update={
            "periods": tuple(map(local, p.periods)),
            "bridge": bridge,
            "borrower": borrower,
            "fx_to_facility": {ccy: rate},
        }
    )


EDGE: dict[str, Callable[[CreditPackage, random.Random], CreditPackage]] = {
    "restatement": restate,
    "fiscal_year_change": fiscal_year_change,
    "missing_quarter": missing_quarter,
    "addbacks_over_cap": addbacks_over_cap,
    "customer_concentration": customer_concentration,
    "covenant_lite": covenant_lite,
    "sponsor_prior_default": sponsor_prior_default,
    "currency_mismatch": currency_mismatch,
    "qoe_decides": qoe_decides,
    "cure_rights": cure_rights,
    "certificate_decides": certificate_decides,
    "breach_history_decides": breach_history_decides,
    "customer_contract_decides": customer_contract_decides,
}
"""The held-out edge families by name."""
EDGE_BASES = (BASE[0], BASE[0], BASE[1], BASE[6])
"""What an edge package is drawn as before its edge fact is added."""
BASES_BY_KIND: dict[str, tuple[Recipe, ...]] = {"qoe_decides": (BASE[1], BASE[6])}
"""Families drawn from their own bases: a quality-of-earnings report decides only where support
would carry leverage under a policy level."""
ASKS_FIRST: dict[str, str] = {
    "qoe_decides": "quality_of_earnings",
    "certificate_decides": "compliance_certificates",
    "breach_history_decides": "breach_history",
    "customer_contract_decides": "customer_contracts",
}
"""Families whose package must make policy ask for an item first (else it is drawn again)."""


def edge_case(
    kind: str, rng: random.Random, package_id: str, policy: FundPolicy
) -> tuple[CreditPackage, Assessment]:
    """A package of edge family `kind`."""
    for _ in range(ATTEMPTS):
        recipe = rng.choice(BASES_BY_KIND.get(kind, EDGE_BASES))
        package, _ = base_case(recipe, rng, package_id, policy)
        package = EDGE[kind](package, rng)
        found = assess(package, policy, TODAY)
        # Every item policy asks for first has an answer (delivered or to follow): the deal system
        # says "nothing further" to an item the borrower was never given an answer for.
        answered = all(any(a.item == i for a in package.answers) for i in found.ask_first)
        if answered and (kind not in ASKS_FIRST or ASKS_FIRST[kind] in found.ask_first):
            return package, found
    raise RuntimeError(f"edge family {kind} found no package in {ATTEMPTS} draws")
