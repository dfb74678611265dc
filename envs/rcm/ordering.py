"""The order a work queue is worked in: the claim whose deadline comes first is acted on first.

A queue task lists its claims and their deadlines (`VerifierSpec.params["queue"]`). The first write
on a claim (attempted: the system took it for processing, even if it refused it) is when work on it
started. For every two claims whose deadlines differ (a claim with no deadline comes after every
claim that has one), work on the earlier one must start first: in production, the claim worked
later is the one whose appeal window or filing limit runs out. The check gates the score like an
outcome fact: a queue worked out of order misses a deadline.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from envs.contract import Trajectory
from envs.rcm.intents import WRITES
from schemas.tasks import Task
from schemas.verdicts import CheckResult

_NOT_ATTEMPTED = frozenset({"validation", "unknown_tool"})


def deadline_order(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """Fails on the first pair of claims started against their deadlines' order; silent on tasks
    that are not queues."""
    queue = task.verifier.params.get("queue")
    if not isinstance(queue, list) or not queue:
        return
    deadlines = {str(row["claim_id"]): _day(row.get("deadline")) for row in queue}
    started: dict[str, int] = {}
    for index, turn in enumerate(trajectory.turns):
        claim_id = str(turn.call.arguments.get("claim_id", ""))
        error = turn.result.error
        attempted = not (error is not None and error.kind in _NOT_ATTEMPTED)
        if turn.call.name in WRITES and attempted and claim_id in deadlines:
            started.setdefault(claim_id, index)
    order = sorted(started, key=started.__getitem__)
    for position, later in enumerate(order):
        for earlier in order[:position]:
            if deadlines[later] < deadlines[earlier]:
                yield _check(
                    False,
                    f"worked {earlier} (deadline {_show(deadlines[earlier])}) before {later} "
                    f"(deadline {_show(deadlines[later])})",
                )
                return
    yield _check(True, f"worked the {len(order)} claims started in deadline order")


def _day(value: object) -> date:
    return date.fromisoformat(str(value)) if value else date.max


def _show(day: date) -> str:
    return "none" if day == date.max else day.isoformat()


def _check(passed: bool, explanation: str) -> CheckResult:
    return CheckResult(
        name="outcome.rcm.deadline_order", kind="outcome", passed=passed, explanation=explanation
    )
