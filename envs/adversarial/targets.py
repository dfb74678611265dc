"""What the adversarial batteries share: a task's family, retargeting it to another verifier, its
gold outcomes, and scoring one trajectory with several verifiers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from envs.contract import Trajectory
from envs.domain import Domain
from envs.env import replay
from envs.verifiers.base import VERIFIERS, VerifierRegistry
from schemas.tasks import Task
from schemas.tools import ToolCall
from schemas.verdicts import Verdict

UNTAGGED = "(untagged)"


def family(task: Task) -> str:
    """The task's family: its `edge:<kind>` tag, else its `carc:<code>` tag, else its first tag."""
    for prefix in ("edge:", "carc:"):
        for tag in task.tags:
            if tag.startswith(prefix):
                return tag
    return task.tags[0] if task.tags else UNTAGGED


def retarget(task: Task, verifier: str) -> Task:
    """The same task scored by `verifier` (everything else unchanged)."""
    if task.verifier.verifier == verifier:
        return task
    return task.model_copy(update={"verifier": task.verifier.model_copy(update={"verifier": verifier})})


def verifier_names(tasks: Sequence[Task], verifiers: Sequence[str] | None) -> tuple[str, ...]:
    """The verifiers to run: the given ones, or every verifier the tasks name, in first-seen order."""
    if verifiers is not None:
        if not verifiers:
            raise ValueError("name at least one verifier")
        return tuple(dict.fromkeys(verifiers))
    return tuple(dict.fromkeys(task.verifier.verifier for task in tasks))


def gold_trajectories(task: Task) -> list[tuple[str, tuple[ToolCall, ...]]]:
    """(label, calls) for the gold solution and each alternative solution."""
    golds = [("gold", task.gold_solution)]
    golds += [(f"alternative {i + 1}", calls) for i, calls in enumerate(task.alternative_solutions)]
    return golds


def gold_views(task: Task, domain: Domain, *, seed: int = 0) -> list[dict[str, Any]]:
    """The outcome view of each gold trajectory's final world, replayed fresh."""
    return [
        domain.outcome_view(replay(domain, task, calls, seed=seed).final_world)
        for _, calls in gold_trajectories(task)
    ]


def changes_outcome(view: Mapping[str, Any], golds: Sequence[Mapping[str, Any]]) -> bool:
    """Whether an outcome view differs from the view of every gold trajectory, postings compared
    as money (`postings_summed`)."""
    mine = postings_summed(view)
    return all(mine != postings_summed(gold) for gold in golds)


def postings_summed(view: Any) -> Any:
    """The view with each list of postings (rows that all carry an `amount`) collapsed to one row
    per set of other fields, its amount the sum: a contractual amount posted in two parts is the
    same outcome as one posting of it."""
    if isinstance(view, Mapping):
        return {key: postings_summed(value) for key, value in view.items()}
    if isinstance(view, list) and view and all(isinstance(r, Mapping) and "amount" in r for r in view):
        totals: dict[str, float] = {}
        for row in view:
            rest = json.dumps({k: v for k, v in row.items() if k != "amount"}, sort_keys=True, default=str)
            amount = row["amount"]
            totals[rest] = round(
                totals.get(rest, 0.0) + (amount if isinstance(amount, int | float) else 0.0), 2
            )
        return sorted(totals.items())
    return view


def score_all(
    task: Task,
    trajectory: Trajectory,
    verifiers: Sequence[str],
    registry: VerifierRegistry = VERIFIERS,
) -> dict[str, Verdict | str]:
    """Verifier name → its verdict, or the error it raised (a verifier that cannot score a task is
    a finding, not a crash)."""
    out: dict[str, Verdict | str] = {}
    for name in verifiers:
        try:
            out[name] = registry.get(name).score(retarget(task, name), trajectory)
        except Exception as exc:  # recorded and reported; the battery goes on
            out[name] = f"{type(exc).__name__}: {exc}"
    return out
