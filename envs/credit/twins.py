"""Counterfactual twins of the credit families whose answer decides: pairs of packages that are the
same but for the borrower's answer, where that answer calls for another decision.

`breach_history_decides`: the sponsor's breach history is clean, a reset, a default repaid in full,
or a default that cost the lenders money (the sponsor's prior default); `customer_contract_decides`:
the largest customer's contract was renewed past maturity, notice was given, or terms are still
being negotiated. A twin swaps the finding of the answer (its text and its record, as
`diligence.json` words them) and keeps the package; it is kept when no decision policy accepts on
one twin is accepted on the other.
Tasks of a pair share the tag `twin:<set id>` (`envs.adversarial.twins`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from datetime import date
from functools import cache
from typing import Any

from adapters.credit.models import BorrowerAnswer, BreachRecord, CreditPackage, FundPolicy
from envs.adversarial.twins import TWIN_TAG, twin_sets
from envs.credit.assess import assess
from envs.credit.cases import edge_case
from envs.credit.diligence import maturity
from envs.credit.diligence_cases import DATA
from envs.credit.tasks import to_task
from envs.credit.worldgen import TODAY
from schemas.tasks import Task

MAX_DRAWS = 60
"""Packages drawn per family, at most, to find enough pairs whose answers decide apart."""


@cache
def _data() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DATA.read_text())
    return found


def _swap(package: CreditPackage, item: str, answer: BorrowerAnswer) -> CreditPackage:
    answers = tuple(answer if a.item == item else a for a in package.answers)
    return package.model_copy(update={"answers": answers})


def _breach_twins(package: CreditPackage) -> list[CreditPackage]:
    """The package with each other breach-history finding as its answer."""
    data = _data()["breach_history"]
    mine = next(a for a in package.answers if a.item == "breach_history")
    out = []
    for finding in sorted(data["findings"].values(), key=lambda f: str(f["text"])):
        records = tuple(
            BreachRecord(
                company=mine.breach_history[0].company if mine.breach_history else data["companies"][0],
                year=mine.breach_history[0].year if mine.breach_history else int(data["years"][0]),
                kind=kind,
                resolution=resolution,
                lenders_repaid_in_full=repaid,
            )
            for kind, resolution, repaid in finding["records"]
        )
        if records != mine.breach_history:
            answer = mine.model_copy(update={"text": finding["text"], "breach_history": records})
            out.append(_swap(package, "breach_history", answer))
    return out


def _contract_twins(package: CreditPackage) -> list[CreditPackage]:
    """The package with each other customer-contract finding as its answer (a renewal runs past
    maturity; otherwise the term ends when the package says)."""
    data = _data()["customer_contracts"]
    mine = next(a for a in package.answers if a.item == "customer_contracts")
    contract = mine.customer_contract
    ends = package.borrower.largest_customer_contract_ends
    if contract is None or ends is None:
        return []
    renewed_to = date(maturity(package, TODAY).year + int(data["renewed_years_past_maturity"]), 12, 31)
    out = []
    for status, text in sorted(data["findings"].items()):
        if status == contract.status:
            continue
        edited = contract.model_copy(
            update={"status": status, "ends": renewed_to if status == "renewed" else ends}
        )
        answer = mine.model_copy(update={"text": text, "customer_contract": edited})
        out.append(_swap(package, "customer_contracts", answer))
    return out


TWINS: dict[str, Callable[[CreditPackage], list[CreditPackage]]] = {
    "breach_history_decides": _breach_twins,
    "customer_contract_decides": _contract_twins,
}
"""Edge family → the package's possible twins (each with another answer)."""


def generate_twins(seed: int = 0, per_kind: int = 8) -> list[Task]:
    """`per_kind` twin pairs per family (`credit-twins-<family>-<i>-a` and `-b`), tagged
    `twin:<family>-<i>`, `edge:<family>` and `dist:twins`."""
    policy = FundPolicy()
    out: list[Task] = []
    for k, (kind, twins_of) in enumerate(TWINS.items()):
        found = 0
        for draw_index in range(MAX_DRAWS):
            if found >= per_kind:
                break
            rng = random.Random(f"credit-twins:{seed}:{kind}:{draw_index}")
            package_id = f"PKG-{8000 + k * 100 + found}"
            package, first = edge_case(kind, rng, package_id, policy)
            others = [(p, assess(p, policy, TODAY)) for p in twins_of(package)]
            apart = [
                (p, a)
                for p, a in others
                if first.classes[0] not in a.classes
                and a.classes[0] not in first.classes
                and a.ask_first == first.ask_first
            ]
            if not apart:
                continue
            twin, second = rng.choice(apart)
            set_id = f"{kind}-{found:03d}"
            for suffix, (made, a) in (("a", (package, first)), ("b", (twin, second))):
                out.append(
                    to_task(
                        made,
                        a,
                        policy,
                        task_id=f"credit-twins-{set_id}-{suffix}",
                        seed=seed,
                        distribution="twins",
                        tags=(f"edge:{kind}", f"{TWIN_TAG}{set_id}"),
                    )
                )
            found += 1
        if found < per_kind:
            raise ValueError(f"credit twins of {kind}: only {found} of {per_kind} pairs in {MAX_DRAWS} draws")
    return out


def twin_problems(tasks: Sequence[Task], verifier: str = "credit.v1") -> list[str]:
    """What is wrong with the twin sets among `tasks`: a set that is not a pair, packages that differ
    beyond the answers, or a gold that passes on its twin."""
    from envs.credit.domain import DOMAIN
    from envs.env import replay
    from envs.verifiers.base import VERIFIERS

    scorer = VERIFIERS.get(verifier)
    problems: list[str] = []
    for set_id, pair in sorted(twin_sets(tasks).items()):
        if len(pair) != 2:
            problems.append(f"twin set {set_id}: {len(pair)} tasks, not a pair")
            continue
        first, second = pair
        shown = [
            {k: v for p in t.initial_world["packages"].values() for k, v in p.items() if k != "answers"}
            for t in pair
        ]
        if shown[0] != shown[1] or first.work_item != second.work_item:
            problems.append(f"twin set {set_id}: the packages differ beyond the borrower's answers")
        for mine, other in ((first, second), (second, first)):
            if scorer.score(other, replay(DOMAIN, other, mine.gold_solution)).passed:
                problems.append(f"twin set {set_id}: {mine.task_id}'s gold also passes on {other.task_id}")
    return problems
