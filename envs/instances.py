"""Fresh instances of a task: the same case for other people, ids and dates.

A promoted task is one production case. To train on it and to judge the training, an improvement
cycle needs more than the one task, and instances it has never seen: the same situation (the
denial, the rule that applies, the fault the live system threw, the resolution that is right) for
another patient, another claim, on other dates. An instance is the task's JSON rewritten whole:

- every ISO date (`2025-01-17`, and the date of a timestamp) moves by the same number of days, so
  every interval the case turns on (days since service, the appeal window, a rule's effective
  date against the day the item is worked) is unchanged;
- every identity the domain names (`Identities`: claim and patient ids, names, member ids) is
  replaced wherever it appears as a whole word: in the world, the work item, the verifier's spec,
  the gold calls and any text, in lower case too (assertion names spell claim ids so).

Amounts, codes, payers and rules stay: they are the case. Pure; the domain says what its
identities are (`envs/rcm/instances.py`), and the caller checks each instance with the promotion
gates before using it (`fresh_instances`' `check`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from datetime import date, timedelta
from typing import Any

from schemas.tasks import Provenance, Task

INSTANCE_TAG = "case:"
"""Tag prefix naming the promoted task an instance was made from (its family in reports)."""
GENERATOR = "instances.v1"
_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_LINEAGE_TAGS = ("fingerprint:", "draft:", "spec:", INSTANCE_TAG)
"""Tags that name one task's own lineage; an instance gets its own `case:` tag instead."""

Identities = Callable[[Task, random.Random], Mapping[str, str]]
"""The domain's identities in a task, each with the fresh value an instance gives it."""


def shift_dates(text: str, days: int) -> str:
    """`text` with every valid ISO date moved by `days` (an invalid one is left as it is)."""

    def moved(match: re.Match[str]) -> str:
        try:
            day = date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            return match[0]
        return (day + timedelta(days=days)).isoformat()

    return _DATE.sub(moved, text)


def renamer(mapping: Mapping[str, str]) -> Callable[[str], str]:
    """Replace every key of `mapping` (and its lower case) that stands as a whole word."""
    table = {**{k.lower(): v.lower() for k, v in mapping.items()}, **dict(mapping)}
    if not table:
        return lambda text: text
    keys = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w])")
    return lambda text: pattern.sub(lambda m: table[m[1]], text)


def rewrite(value: Any, change: Callable[[str], str]) -> Any:
    """`value` (JSON) with `change` applied to every string and every mapping key."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [rewrite(v, change) for v in value]
    if isinstance(value, dict):
        return {change(k): rewrite(v, change) for k, v in value.items()}
    return value


def instance(task: Task, index: int, *, seed: int, identities: Identities, max_shift_days: int = 120) -> Task:
    """Instance `index` of `task` under `seed` (the same arguments give the same instance)."""
    rng = random.Random(f"{task.task_id}\0{seed}\0{index}")
    days = rng.choice([d for d in range(-max_shift_days, max_shift_days + 1) if d != 0])
    rename = renamer(identities(task, rng))
    doc = task.model_dump(mode="json")
    body = rewrite(
        {
            k: doc[k]
            for k in ("work_item", "initial_world", "gold_solution", "alternative_solutions", "verifier")
        },
        lambda text: shift_dates(rename(text), days),
    )
    source = task.provenance
    return Task.model_validate(
        {
            **doc,
            **body,
            "task_id": f"{task.task_id}~{seed}.{index}",
            "provenance": Provenance(
                kind=source.kind,
                generator=GENERATOR,
                seed=seed,
                distribution="instance",
                episode_id=source.episode_id,
                reviewer=source.reviewer,
            ).model_dump(mode="json"),
            "tags": [
                *(t for t in task.tags if not t.startswith(_LINEAGE_TAGS)),
                f"{INSTANCE_TAG}{case_of(task)}",
            ],
        }
    )


def case_of(task: Task) -> str:
    """The promoted task an instance stands for (a task that is no instance stands for itself)."""
    found = next((t for t in task.tags if t.startswith(INSTANCE_TAG)), None)
    return found.removeprefix(INSTANCE_TAG) if found else task.task_id


def fresh_instances(
    tasks: list[Task],
    per_task: int,
    *,
    seed: int,
    identities: Identities,
    check: Callable[[Task], bool] = lambda task: True,
    attempts: int = 3,
) -> list[Task]:
    """`per_task` instances of each task that pass `check` (the promotion gates), trying at most
    `attempts` times as many; a task whose instances keep failing gets fewer (never a bad one)."""
    out: list[Task] = []
    for task in tasks:
        made = 0
        for index in range(per_task * attempts):
            if made == per_task:
                break
            candidate = instance(task, index, seed=seed, identities=identities)
            if check(candidate):
                out.append(candidate)
                made += 1
    return out
