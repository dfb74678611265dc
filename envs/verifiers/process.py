"""Process checks: required and forbidden calls with argument constraints, and escalation.

Argument constraints (`CallConstraint.arguments`) map a dotted path into the call's arguments to a
required value. Arguments are first normalised through the tool's argument model, so `"120"` and
`120.0` for a decimal field compare equal. A value may also be an operator object:
`{"$in": [...]}`, `{"$contains": x}` (list or string), `{"$ne": x}`, `{"$exists": bool}`,
`{"$gte": n}`, `{"$lte": n}` (numbers).

Which calls count:
- a required call counts if it succeeded, or if its outcome is unknown (a write that timed out may
  have landed; whether it did is what the outcome checks see): a refused appeal was not an appeal;
- a forbidden call counts as soon as the system accepted it for processing (anything but a
  validation or unknown-tool error): the intent is what the rule judges, and an `unknown` outcome
  may well have taken effect.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import ValidationError

from envs.contract import Trajectory, Turn
from envs.domain import Domain
from envs.verifiers.outcome import MISSING, get_path
from schemas.tasks import CallConstraint, Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult

_NOT_ATTEMPTED = frozenset({"validation", "unknown_tool", "budget"})


def canonical_arguments(domain: Domain, turn: Turn) -> dict[str, Any]:
    """The call's arguments as the tool's model reads them (JSON mode); raw when they do not parse."""
    for spec in domain.tool_specs():
        if spec.name == turn.call.name:
            try:
                return dict(spec.args_model.model_validate(turn.call.arguments).model_dump(mode="json"))
            except ValidationError:
                break
    return dict(turn.call.arguments)


def _equal(got: Any, want: Any) -> bool:
    if isinstance(got, bool) or isinstance(want, bool):
        return type(got) is type(want) and got == want  # True is not 1 here
    if got == want:
        return True
    if isinstance(got, int | float | str) and isinstance(want, int | float | str):
        try:
            return Decimal(str(got)) == Decimal(str(want))
        except InvalidOperation:
            return False
    return False


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def value_matches(got: Any, want: Any) -> bool:
    """Whether an argument value satisfies a constraint value (plain or operator)."""
    if isinstance(want, dict) and len(want) == 1 and next(iter(want)).startswith("$"):
        op, operand = next(iter(want.items()))
        if op == "$exists":
            return (got is not MISSING) == bool(operand)
        if got is MISSING:
            return False
        if op == "$in":
            return any(_equal(got, option) for option in operand)
        if op == "$ne":
            return not _equal(got, operand)
        if op == "$contains":
            if isinstance(got, str):
                return str(operand) in got
            return isinstance(got, list | tuple) and any(_equal(item, operand) for item in got)
        if op in ("$gte", "$lte"):
            number = _number(got)
            if number is None:
                return False
            return number >= Decimal(str(operand)) if op == "$gte" else number <= Decimal(str(operand))
        raise ValueError(f"unknown constraint operator {op!r}")
    return got is not MISSING and _equal(got, want)


def matches(constraint: CallConstraint, arguments: Mapping[str, Any]) -> bool:
    """Whether arguments satisfy every path of the constraint."""
    return all(
        value_matches(get_path(arguments, path.split(".")), want)
        for path, want in constraint.arguments.items()
    )


def describe(constraint: CallConstraint) -> str:
    """`tool(path=value, ...)` for explanations."""
    args = ", ".join(f"{k}={v!r}" for k, v in constraint.arguments.items())
    return f"{constraint.tool}({args})"


def required_checks(domain: Domain, task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """One check per required call."""
    for index, rule in enumerate(task.verifier.required_calls):
        hit = any(
            turn.call.name == rule.tool
            and turn.result.outcome in (ToolOutcome.OK, ToolOutcome.UNKNOWN)
            and matches(rule, canonical_arguments(domain, turn))
            for turn in trajectory.turns
        )
        why = f" ({rule.reason})" if rule.reason else ""
        yield CheckResult(
            name=f"process.required.{rule.tool}.{index}",
            kind="process",
            passed=hit,
            explanation=(
                f"made {describe(rule)} successfully" if hit else f"never made {describe(rule)}{why}"
            ),
        )


def forbidden_checks(domain: Domain, task: Task, trajectory: Trajectory) -> Iterable[CheckResult]:
    """One check per forbidden call."""
    for index, rule in enumerate(task.verifier.forbidden_calls):
        offending = [
            turn
            for turn in trajectory.turns
            if turn.call.name == rule.tool
            and not (turn.result.error is not None and turn.result.error.kind in _NOT_ATTEMPTED)
            and matches(rule, canonical_arguments(domain, turn))
        ]
        why = f": {rule.reason}" if rule.reason else ""
        yield CheckResult(
            name=f"process.forbidden.{rule.tool}.{index}",
            kind="process",
            passed=not offending,
            explanation=(
                f"did not make {describe(rule)}"
                if not offending
                else f"made {describe(rule)} (call {offending[0].call.call_id}){why}"
            ),
        )


def escalation_check(domain: Domain, task: Task, trajectory: Trajectory) -> CheckResult:
    """Escalated exactly when the task requires it: a missed hand-off risks money or compliance,
    a needless one spends a human's time."""
    escalated = any(
        turn.call.name in domain.escalation_tools and turn.result.outcome is ToolOutcome.OK
        for turn in trajectory.turns
    )
    required = task.verifier.must_escalate
    if required:
        text = (
            "escalated to a human, as required"
            if escalated
            else "did not escalate, but this case needs a human"
        )
    else:
        text = (
            "did not escalate a case it could resolve"
            if not escalated
            else "escalated a case it should have resolved"
        )
    return CheckResult(
        name="process.escalation", kind="process", passed=escalated == required, explanation=text
    )
