"""The credit verifier `credit.v1`: the task's outcome spec, the process rules, the terminal rules
and the content checks on memos and requests.

Process rules: the analyst reads the package, a period's statements, the EBITDA bridge, the term
sheet and the existing debt before deciding; where policy says to ask first (a restatement in the
look-back, a quarter missing from the TTM) the request comes before any decision. Terminal rules
(outcome facts, they gate the score): nothing is written on a package after its decision, and no
write is sent again after the same write landed.
"""

from __future__ import annotations

from collections.abc import Iterable

from adapters.credit.tools import ESCALATE, RECORD, REQUEST
from envs.contract import Trajectory
from envs.credit.content import content_checks
from envs.verifiers.standard import StandardVerifier
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult

DECISIONS = frozenset({RECORD, ESCALATE})
WRITES = frozenset({RECORD, ESCALATE, REQUEST})
READS_BEFORE_DECIDING = (
    "get_package",
    "get_financial_statements",
    "get_ebitda_bridge",
    "get_term_sheet",
    "get_existing_debt",
)
_NOT_ATTEMPTED = frozenset({"validation", "unknown_tool", "budget"})


def _attempted(turn: object) -> bool:
    error = turn.result.error  # type: ignore[attr-defined]
    return not (error is not None and error.kind in _NOT_ATTEMPTED)


def reads_before_deciding(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """An analyst reads the package before deciding on it."""
    seen: set[str] = set()
    for turn in trajectory.turns:
        if turn.result.outcome is ToolOutcome.OK:
            seen.add(turn.call.name)
        if turn.call.name in DECISIONS and _attempted(turn):
            missing = [r for r in READS_BEFORE_DECIDING if r not in seen]
            if missing:
                yield _check(
                    "process",
                    "reads_before_deciding",
                    False,
                    f"called {turn.call.name} before {', '.join(missing)}",
                )
                return
    yield _check("process", "reads_before_deciding", True, "read the package before deciding")


def request_before_deciding(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """Where policy says to ask first (restated figures, a missing quarter), ask before deciding."""
    wanted = set(task.verifier.params.get("ask_first", ()))
    if not wanted:
        return
    asked: set[str] = set()
    for turn in trajectory.turns:
        if turn.call.name == REQUEST and turn.result.outcome is ToolOutcome.OK:
            asked.update(str(i) for i in turn.call.arguments.get("items", []))
        if turn.call.name in DECISIONS and _attempted(turn) and not wanted <= asked:
            missing = ", ".join(sorted(wanted - asked))
            yield _check(
                "process",
                "request_before_deciding",
                False,
                f"called {turn.call.name} before requesting {missing}",
            )
            return
    yield _check(
        "process", "request_before_deciding", True, "requested what policy says to ask first before deciding"
    )


def nothing_after_decision(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """Fails on the first write to a package after its decision landed."""
    decided: set[str] = set()
    for turn in trajectory.turns:
        package = str(turn.call.arguments.get("package_id", ""))
        if turn.call.name in WRITES and _attempted(turn) and package in decided:
            yield _check(
                "outcome",
                "nothing_after_decision",
                False,
                f"called {turn.call.name} on {package} after its decision",
            )
            return
        if turn.call.name in DECISIONS and turn.result.outcome is ToolOutcome.OK:
            decided.add(package)
    yield _check("outcome", "nothing_after_decision", True, "wrote nothing on a package after its decision")


def no_repeated_write(task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """Fails on the first write refused after the same tool's write on the same package landed."""
    landed: set[tuple[str, str]] = set()
    for turn in trajectory.turns:
        key = (turn.call.name, str(turn.call.arguments.get("package_id", "")))
        error = turn.result.error
        if turn.call.name in WRITES and error is not None and error.kind == "domain" and key in landed:
            yield _check(
                "outcome", "no_repeated_write", False, f"sent {key[0]} on {key[1]} again after it had landed"
            )
            return
        if turn.result.outcome is ToolOutcome.OK:
            landed.add(key)
    yield _check("outcome", "no_repeated_write", True, "sent no write again after it had landed")


def _check(kind: str, name: str, passed: bool, explanation: str) -> CheckResult:
    return CheckResult(name=f"{kind}.credit.{name}", kind=kind, passed=passed, explanation=explanation)


RULES = (
    reads_before_deciding,
    request_before_deciding,
    nothing_after_decision,
    no_repeated_write,
    content_checks,
)
CREDIT_V1 = StandardVerifier(name="credit.v1", domain="credit", rules=RULES, outcome="spec", evidence=True)
"""Outcome spec, process rules, terminal rules and content checks."""
