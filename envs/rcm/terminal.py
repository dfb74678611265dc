"""Terminal-state rules: nothing acts on a claim after it is closed or handed to a human, and no
write is sent again once it has landed.

A closed claim is resolved; an escalated one belongs to the human now. A later write on it (even
one the system refuses) is work done behind the owner's back. A write the system refuses after the
same write on the same claim landed (a second patient bill, a second appeal, a posting past the
balance) is a double action that only the payer's or the ledger's guard stopped. Both are outcome
facts: they gate the score like the outcome spec does.
"""

from __future__ import annotations

from collections.abc import Iterable

from envs.contract import Trajectory
from envs.rcm.intents import WRITES
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult

_NOT_ATTEMPTED = frozenset({"validation", "unknown_tool"})
_ENDS_WORK = {"close_claim": "closed", "escalate_to_human": "handed to a human"}


def nothing_after_resolution(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """Fails on the first write to a claim after a successful close or escalation of it."""
    ended: dict[str, str] = {}
    for turn in trajectory.turns:
        name = turn.call.name
        claim_id = str(turn.call.arguments.get("claim_id", ""))
        attempted = not (turn.result.error is not None and turn.result.error.kind in _NOT_ATTEMPTED)
        if name in WRITES and attempted and claim_id in ended:
            yield _check(False, f"called {name} on {claim_id} after it was {ended[claim_id]}")
            return
        if name in _ENDS_WORK and turn.result.outcome is ToolOutcome.OK:
            ended[claim_id] = _ENDS_WORK[name]
    yield _check(True, "nothing acted on a claim after it was closed or handed to a human")


def no_repeated_write(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """Fails on the first write refused after the same tool's write on the same claim landed."""
    landed: set[tuple[str, str]] = set()
    for turn in trajectory.turns:
        key = (turn.call.name, str(turn.call.arguments.get("claim_id", "")))
        error = turn.result.error
        if turn.call.name in WRITES and error is not None and error.kind == "domain" and key in landed:
            yield _check(
                False,
                f"sent {key[0]} on {key[1]} again after it had landed (refused: {error.message})",
                "no_repeated_write",
            )
            return
        if turn.result.outcome is ToolOutcome.OK:
            landed.add(key)
    yield _check(True, "sent no write again after it had landed", "no_repeated_write")


def _check(passed: bool, explanation: str, name: str = "nothing_after_resolution") -> CheckResult:
    return CheckResult(name=f"outcome.rcm.{name}", kind="outcome", passed=passed, explanation=explanation)
