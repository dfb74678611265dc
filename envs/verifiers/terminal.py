"""Terminal rules, written once and configured per domain: nothing is written on a record after the
move that ends its work landed, and no write is sent again once the same write on it landed.

A record whose work has ended (a closed or escalated claim, a decided package) belongs to its
outcome or to a human; a later write on it, even one the system refuses, is work done behind the
owner's back. A write the system refuses after the same write on the same record landed is a
double action that only a guard stopped. Both are outcome facts: they gate the score like the
outcome spec does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from envs.contract import Trajectory
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult


@dataclass(frozen=True)
class TerminalRules:
    """One domain's terminal rules; `after_end` and `no_repeated_write` are its verifier rules."""

    domain: str
    """Names the checks `outcome.<domain>.<rule>`."""
    record: str
    """The argument naming the record a call acts on (`claim_id`, `package_id`)."""
    writes: Collection[str]
    """Tools that write."""
    ends: Mapping[str, str]
    """Tool that ends a record's work, when it lands → how the failure says so (`it was closed`)."""
    after_end_name: str
    """The first rule's name (`nothing_after_resolution`)."""
    after_end_kept: str
    """The first rule's explanation when it holds."""
    not_attempted: frozenset[str]
    """Error kinds of a call that never reached the system (it is not a write on the record)."""
    refusal_told: bool = False
    """Whether a repeated write's failure quotes the refusal."""

    def after_end(self, task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
        """Fails on the first write to a record after a move that ended its work landed."""
        ended: dict[str, str] = {}
        for turn in trajectory.turns:
            name = turn.call.name
            record = str(turn.call.arguments.get(self.record, ""))
            error = turn.result.error
            attempted = not (error is not None and error.kind in self.not_attempted)
            if name in self.writes and attempted and record in ended:
                yield self._check(
                    self.after_end_name, False, f"called {name} on {record} after {ended[record]}"
                )
                return
            if name in self.ends and turn.result.outcome is ToolOutcome.OK:
                ended[record] = self.ends[name]
        yield self._check(self.after_end_name, True, self.after_end_kept)

    def no_repeated_write(self, task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
        """Fails on the first write refused after the same tool's write on the same record landed."""
        landed: set[tuple[str, str]] = set()
        for turn in trajectory.turns:
            key = (turn.call.name, str(turn.call.arguments.get(self.record, "")))
            error = turn.result.error
            if (
                turn.call.name in self.writes
                and error is not None
                and error.kind == "domain"
                and key in landed
            ):
                told = f" (refused: {error.message})" if self.refusal_told else ""
                failure = f"sent {key[0]} on {key[1]} again after it had landed{told}"
                yield self._check("no_repeated_write", False, failure)
                return
            if turn.result.outcome is ToolOutcome.OK:
                landed.add(key)
        yield self._check("no_repeated_write", True, "sent no write again after it had landed")

    def _check(self, name: str, passed: bool, explanation: str) -> CheckResult:
        return CheckResult(
            name=f"outcome.{self.domain}.{name}", kind="outcome", passed=passed, explanation=explanation
        )
