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
from envs.verifiers.terminal import TerminalRules
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
TERMINAL = TerminalRules(
    domain="credit",
    record="package_id",
    writes=WRITES,
    ends={RECORD: "its decision", ESCALATE: "its decision"},
    after_end_name="nothing_after_decision",
    after_end_kept="wrote nothing on a package after its decision",
    not_attempted=_NOT_ATTEMPTED,
)


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


def _check(kind: str, name: str, passed: bool, explanation: str) -> CheckResult:
    return CheckResult(name=f"{kind}.credit.{name}", kind=kind, passed=passed, explanation=explanation)


RULES = (
    reads_before_deciding,
    request_before_deciding,
    TERMINAL.after_end,
    TERMINAL.no_repeated_write,
    content_checks,
)
CREDIT_V1 = StandardVerifier(name="credit.v1", domain="credit", rules=RULES, outcome="spec", evidence=True)
"""Outcome spec, process rules, terminal rules and content checks."""
