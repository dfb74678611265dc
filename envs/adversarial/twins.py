"""Counterfactual twins on the card: pairs of tasks a blind desk cannot tell apart whose right moves
differ (tagged `twin:<set id>` by the domain's generator). A twin set holds when each task's gold,
replayed on its twin, fails there (the golds differ), and no desk of the blind battery passes both
tasks (a desk that answers both the same can pass at most one)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from pydantic import Field

from envs.adversarial.targets import score_all
from envs.domain import DOMAINS, Domain
from envs.env import replay
from envs.rollout import Policy, play
from envs.verifiers.base import VERIFIERS
from schemas.base import Contract
from schemas.tasks import Task

TWIN_TAG = "twin:"
"""Tag prefix of a twin set."""


class TwinSet(Contract):
    """One pair of twins."""

    set_id: str
    """The set's id."""
    tasks: list[str]
    """Its tasks."""
    golds_differ: bool
    """Whether each task's gold fails on its twin."""
    passes_both: list[str] = Field(default_factory=list)
    """Blind desks that pass every task of the set."""


class TwinReport(Contract):
    """Every twin set of the card's tasks."""

    verifier: str
    """The verifier scored."""
    sets: list[TwinSet] = Field(default_factory=list)
    """One per twin set."""
    desks: list[str] = Field(default_factory=list)
    """The blind desks played on both twins."""
    passed_one: dict[str, int] = Field(default_factory=dict)
    """Blind desk → twin sets where it passed exactly one task."""

    def misses(self) -> list[str]:
        """The bars the twins miss, in words."""
        out = []
        same = [s.set_id for s in self.sets if not s.golds_differ]
        if same:
            out.append(f"{len(same)} twin sets whose golds pass on both twins: {', '.join(same[:5])}")
        both = [s.set_id for s in self.sets if s.passes_both]
        if both:
            out.append(f"{len(both)} twin sets where a blind desk passes both twins: {', '.join(both[:5])}")
        return out


def twin_sets(tasks: Sequence[Task]) -> dict[str, list[Task]]:
    """Tasks grouped by their twin set (tasks without one left out)."""
    sets: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        for tag in task.tags:
            if tag.startswith(TWIN_TAG):
                sets[tag.removeprefix(TWIN_TAG)].append(task)
    return dict(sets)


def pair_problems(
    tasks: Sequence[Task], domain: Domain, verifier: str, seen: Callable[[Task], object], differs: str
) -> list[str]:
    """What is wrong with the twin sets among `tasks`: a set that is not a pair, twins whose `seen`
    (what a blind desk reads of a task) differs (the problem then says `differs`), or a gold that
    passes on its twin (the twins would not call for different moves)."""
    scorer = VERIFIERS.get(verifier)
    problems: list[str] = []
    for set_id, pair in sorted(twin_sets(tasks).items()):
        if len(pair) != 2:
            problems.append(f"twin set {set_id}: {len(pair)} tasks, not a pair")
            continue
        first, second = pair
        if seen(first) != seen(second):
            problems.append(f"twin set {set_id}: {differs}")
        for mine, other in ((first, second), (second, first)):
            if scorer.score(other, replay(domain, other, mine.gold_solution)).passed:
                problems.append(f"twin set {set_id}: {mine.task_id}'s gold also passes on {other.task_id}")
    return problems


def _passes(task: Task, calls_or_policy: Policy | Task, verifier: str, seed: int) -> bool:
    domain = DOMAINS.get(task.domain)
    if isinstance(calls_or_policy, Task):
        trajectory = replay(domain, task, calls_or_policy.gold_solution, seed=seed)
    else:
        trajectory = play(task, calls_or_policy, domain=domain, seed=seed).trajectory
    verdict = score_all(task, trajectory, (verifier,))[verifier]
    return not isinstance(verdict, str) and verdict.passed


def twin_report(
    tasks: Sequence[Task], verifier: str, desks: Sequence[Policy] = (), *, seed: int = 0
) -> TwinReport | None:
    """The twin sets among `tasks`, judged by `verifier`; None when there are none."""
    sets = twin_sets(tasks)
    if not sets:
        return None
    names = [d.ref.model for d in desks]
    one: dict[str, int] = dict.fromkeys(names, 0)
    rows = []
    for set_id, members in sorted(sets.items()):
        differ = len(members) >= 2 and all(
            not _passes(other, mine, verifier, seed)
            for mine in members
            for other in members
            if other is not mine
        )
        both = []
        for desk in desks:
            passed = sum(_passes(t, desk, verifier, seed) for t in members)
            if passed == len(members):
                both.append(desk.ref.model)
            elif passed == 1:
                one[desk.ref.model] += 1
        rows.append(
            TwinSet(set_id=set_id, tasks=[t.task_id for t in members], golds_differ=differ, passes_both=both)
        )
    return TwinReport(verifier=verifier, sets=rows, desks=names, passed_one=one)
