"""Evidence-grounded verdicts: the decisive write must follow the reads that make it right.

A task's resolution declares its deciding facts (`VerifierSpec.params["deciding_facts"]`, data the
generator writes): each is an observation, a read whose result returned something (the accepted
277CA and its date, the signed letter, the rules that close every other path). A deciding fact
holds when a matching read succeeded before the first accepted write it decides. A right outcome
reached without the evidence is a guess that happened to land: an `evidence.<name>` check that
fails gates the score to 0 like an outcome check (`envs.verifiers.base`), and its explanation names
what was not read. The published verdict schema knows the kinds outcome, process and content; an
evidence check is a content check (what the decision rests on), so it needs no new schema version. Domain-neutral: a domain's facts are its generator's data; reads and writes are told
apart by the tools' side effects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import Field

from envs.contract import Trajectory, Turn
from envs.domain import Domain
from envs.verifiers.outcome import get_path
from envs.verifiers.process import canonical_arguments, value_matches
from schemas.base import Contract
from schemas.tasks import Task
from schemas.tools import SideEffect, ToolOutcome
from schemas.verdicts import CheckResult

PARAM = "deciding_facts"
"""The verifier-spec parameter that lists a task's deciding facts."""
VISIBLE_TAG = "visible:"
"""Tag prefix of a task the visible facts (the work item and what it points at) legitimately
decide, so that it needs no deciding fact; the rest of the tag says why."""


class DecidingFact(Contract):
    """An observation that makes a resolution right."""

    name: str
    """Short name, unique within the task (the check is `evidence.<name>`)."""
    reason: str
    """What the observation proves, in words (shown when it was not made)."""
    tool: str | None = None
    """The read that returns it; None: any read."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Constraints on the read's arguments (dotted path → value or operator, as in call constraints)."""
    returns: tuple[str, ...] = ()
    """Values the read's result must contain (each a whole value or word of a value: a date, a
    control number, an authorization number)."""
    result: dict[str, Any] = Field(default_factory=dict)
    """Constraints on the read's result (dotted path → value or operator)."""
    before: tuple[str, ...] = ()
    """The writes it decides; empty: any write."""
    before_arguments: dict[str, Any] = Field(default_factory=dict)
    """Constraints on those writes' arguments (e.g. the claim the fact is about)."""


def deciding_facts(task: Task) -> list[DecidingFact]:
    """The task's deciding facts (none when its spec declares none)."""
    return [DecidingFact.model_validate(f) for f in task.verifier.params.get(PARAM, ())]


def visible_reason(task: Task) -> str | None:
    """Why the visible facts decide the task, when it is tagged so."""
    return next((t.removeprefix(VISIBLE_TAG) for t in task.tags if t.startswith(VISIBLE_TAG)), None)


def _leaves(value: Any) -> Iterable[str]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)
    elif value is not None:
        yield str(value)


def contains(result: Any, wanted: str) -> bool:
    """Whether `wanted` is a value of the result, or a word of one of its text values."""
    for leaf in _leaves(result):
        if leaf == wanted:
            return True
        at = leaf.find(wanted)
        while at >= 0:
            end = at + len(wanted)
            if (at == 0 or not leaf[at - 1].isalnum()) and (end == len(leaf) or not leaf[end].isalnum()):
                return True
            at = leaf.find(wanted, at + 1)
    return False


def observes(fact: DecidingFact, domain: Domain, turn: Turn, reads: frozenset[str]) -> bool:
    """Whether the turn is a successful read that returned the fact."""
    call = turn.call
    if call.name not in reads or (fact.tool is not None and call.name != fact.tool):
        return False
    if turn.result.outcome is not ToolOutcome.OK:
        return False
    if fact.arguments:
        args = canonical_arguments(domain, turn)
        if not all(value_matches(get_path(args, p.split(".")), w) for p, w in fact.arguments.items()):
            return False
    body = turn.result.result
    if fact.result and not all(
        value_matches(get_path(body, p.split(".")), w) for p, w in fact.result.items()
    ):
        return False
    return all(contains(body, wanted) for wanted in fact.returns)


def decides(fact: DecidingFact, domain: Domain, turn: Turn, writes: frozenset[str]) -> bool:
    """Whether the turn is an accepted write the fact decides."""
    call = turn.call
    if call.name not in writes or (fact.before and call.name not in fact.before):
        return False
    if turn.result.outcome not in (ToolOutcome.OK, ToolOutcome.UNKNOWN):
        return False
    args = canonical_arguments(domain, turn) if fact.before_arguments else {}
    return all(value_matches(get_path(args, p.split(".")), w) for p, w in fact.before_arguments.items())


def evidence_checks(domain: Domain, task: Task, trajectory: Trajectory) -> list[CheckResult]:
    """One `evidence.<name>` check per deciding fact."""
    facts = deciding_facts(task)
    if not facts:
        return []
    specs = domain.tool_specs()
    reads = frozenset(s.name for s in specs if s.side_effect is SideEffect.READ)
    writes = frozenset(s.name for s in specs if s.side_effect is not SideEffect.READ)
    return [_check(fact, domain, trajectory.turns, reads, writes) for fact in facts]


def _check(
    fact: DecidingFact, domain: Domain, turns: Sequence[Turn], reads: frozenset[str], writes: frozenset[str]
) -> CheckResult:
    seen = decided = False
    for turn in turns:
        if decides(fact, domain, turn, writes):
            decided = True
            if seen:
                break
            return CheckResult(
                name=f"evidence.{fact.name}",
                kind="content",
                passed=False,
                explanation=(
                    f"made {turn.call.name} (call {turn.call.call_id}) without having read {_what(fact)}: "
                    f"{fact.reason}"
                ),
            )
        seen = seen or observes(fact, domain, turn, reads)
    return CheckResult(
        name=f"evidence.{fact.name}",
        kind="content",
        passed=True,
        explanation=(
            f"read {_what(fact)} before deciding ({fact.reason})"
            if decided
            else f"made no write that {_what(fact)} decides"
        ),
    )


def _what(fact: DecidingFact) -> str:
    tool = fact.tool or "a record"
    args = ", ".join(f"{k}={v!r}" for k, v in fact.arguments.items())
    shown = f" showing {', '.join(fact.returns)}" if fact.returns else ""
    return f"{tool}({args}){shown}"
