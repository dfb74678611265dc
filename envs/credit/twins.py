"""Counterfactual twins of every credit family: pairs of packages whose flags read alike but whose
evidence calls for another decision (other figures, conditions, reasons or class).

For each base recipe (`recipe:<name>`) and edge family (`edge:<kind>`) a package is drawn as the
generator draws it, and `envs.credit.twin_edits` makes its twins: a bridge line's words, history or
tie-out, or the borrower's answer, changed; never what `envs.credit.flags.flagged` shows. A twin is
kept when its assessment differs (another class first: neither twin's classes hold the other's
preferred one), every item policy asks for first has an answer, both tasks validate and each gold
fails on the other twin. Families no edit can twin are listed with the
reason (`twin_edits.json`, `untwinned`). Tasks of a pair share the tag `twin:<set id>`
(`envs.adversarial.twins`) and name the edit (`twin-edit:<name>`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from adapters.credit.models import CreditPackage, FundPolicy
from envs.adversarial.twins import TWIN_TAG, pair_problems
from envs.credit.assess import Assessment, assess
from envs.credit.cases import BASE, EDGE, base_case, edge_case
from envs.credit.flags import flagged
from envs.credit.tasks import to_task
from envs.credit.twin_edits import DATA, EDITS
from envs.credit.worldgen import TODAY
from envs.validate import validate_task
from schemas.tasks import Task

MAX_DRAWS = 80
"""Packages drawn per family, at most, to find enough pairs whose evidence decides apart."""
EDIT_TAG = "twin-edit:"
"""Tag prefix naming the edit that made a pair's second twin."""

Draw = Callable[[random.Random, str, FundPolicy], tuple[CreditPackage, Assessment]]


def families() -> dict[str, Draw]:
    """Every family the generators make (`recipe:<name>`, `edge:<kind>`) and how it is drawn."""
    out: dict[str, Draw] = {f"recipe:{r.name}": partial(base_case, r) for r in BASE}
    out.update({f"edge:{kind}": partial(edge_case, kind) for kind in EDGE})
    return out


def untwinned() -> dict[str, str]:
    """Families no edit twins, and why (`twin_edits.json`)."""
    raw: dict[str, Any] = json.loads(DATA.read_text())
    return {str(k): str(v) for k, v in raw.get("untwinned", {}).items()}


def shown(package: CreditPackage) -> dict[str, Any]:
    """What a flag-following desk reads of a package (its answers unread)."""
    found: dict[str, Any] = flagged(package).model_copy(update={"answers": ()}).model_dump(mode="json")
    return found


def _strength(first: Assessment, second: Assessment) -> int:
    """2: the twins' preferred classes are each unacceptable on the other; 1: the same classes but
    other figures, conditions, reasons or requests; 0: alike."""
    if first.classes[0] not in second.classes and second.classes[0] not in first.classes:
        return 2
    return 1 if _key(first) != _key(second) else 0


def _key(a: Assessment) -> tuple[object, ...]:
    return (a.classes, a.figures, a.conditions, a.max_amount, a.escalation_reasons, a.ask_first)


def _golds_differ(pair: Sequence[Task], verifier: str = "credit.v1") -> bool:
    from envs.credit.domain import DOMAIN
    from envs.env import replay
    from envs.verifiers.base import VERIFIERS

    scorer = VERIFIERS.get(verifier)
    return not any(
        scorer.score(other, replay(DOMAIN, other, mine.gold_solution)).passed
        for mine, other in ((pair[0], pair[1]), (pair[1], pair[0]))
    )


def generate_twins(seed: int = 0, per_kind: int = 8) -> list[Task]:
    """`per_kind` twin pairs per twinned family (`credit-twins-<family>-<i>-a` and `-b`), tagged
    `twin:<family>-<i>`, the family's `recipe:`/`edge:` tag, `twin-edit:<edit>` and `dist:twins`."""
    policy = FundPolicy()
    skip = untwinned()
    out: list[Task] = []
    for k, (family, draw) in enumerate(families().items()):
        if family in skip:
            continue
        name = family.replace(":", "-")
        found = 0
        for draw_index in range(MAX_DRAWS):
            if found >= per_kind:
                break
            rng = random.Random(f"credit-twins:{seed}:{family}:{draw_index}")
            package_id = f"PKG-{8000 + k * 100 + found}"
            package, first = draw(rng, package_id, policy)
            candidates = []
            for edit in EDITS:
                for edit_name, twin in edit(package, rng):
                    second = assess(twin, policy, TODAY)
                    strength = _strength(first, second)
                    # As for an edge package: every item policy asks for first has an answer.
                    answered = all(any(x.item == i for x in twin.answers) for i in second.ask_first)
                    if strength and answered and shown(twin) == shown(package):
                        candidates.append((strength, edit_name, twin, second))
            if not candidates:
                continue
            best = max(c[0] for c in candidates)
            strongest = [c for c in candidates if c[0] == best]
            rng.shuffle(strongest)
            for _, edit_name, twin, second in strongest[:2]:
                set_id = f"{name}-{found:03d}"
                pair = [
                    to_task(
                        made,
                        a,
                        policy,
                        task_id=f"credit-twins-{set_id}-{suffix}",
                        seed=seed,
                        distribution="twins",
                        tags=(family, f"{TWIN_TAG}{set_id}", f"{EDIT_TAG}{edit_name}"),
                    )
                    for suffix, made, a in (("a", package, first), ("b", twin, second))
                ]
                if all(validate_task(t).ok for t in pair) and _golds_differ(pair):
                    out.extend(pair)
                    found += 1
                    break
        if found < per_kind:
            raise ValueError(
                f"credit twins of {family}: only {found} of {per_kind} pairs in {MAX_DRAWS} draws"
            )
    return out


def _read(task: Task) -> tuple[object, list[object]]:
    """What a blind desk reads of a credit task: its work item and how its packages' flags read."""
    from adapters.credit.world import World

    packages = World.model_validate(task.initial_world).packages.values()
    return task.work_item, [shown(p) for p in packages]


def twin_problems(tasks: Sequence[Task], verifier: str = "credit.v1") -> list[str]:
    """What is wrong with the twin sets among `tasks`: a set that is not a pair, packages whose
    flags read differently, or a gold that passes on its twin."""
    from envs.credit.domain import DOMAIN

    return pair_problems(tasks, DOMAIN, verifier, _read, "the packages' flags read differently")
