"""Content checks from rubrics: one check per kind of writing an agent's calls carry (an appeal
letter, a memo), failing on the first call whose writing falls short; none when it wrote nothing.
Each domain writes its rubrics; only calls that landed (ok or unknown) are read."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from envs.contract import Trajectory, Turn
from schemas.tasks import Task
from schemas.tools import ToolOutcome
from schemas.verdicts import CheckResult


@dataclass(frozen=True)
class Rubric:
    """What one kind of writing must do."""

    tools: tuple[str, ...]
    """The calls that carry it."""
    short: str
    """Its name in the check (`content.<domain>.<short>`)."""
    problem: Callable[[Mapping[str, Any], Turn], str | None]
    """(initial world, turn) → why the writing falls short, or None."""
    held: str
    """The explanation when every call's writing holds."""


def rubric_checks(
    domain: str, rubrics: Iterable[Rubric], task: Task, trajectory: Trajectory
) -> Iterator[CheckResult]:
    """One check per rubric whose tools the trajectory called."""
    world = task.initial_world
    landed = [t for t in trajectory.turns if t.result.outcome in (ToolOutcome.OK, ToolOutcome.UNKNOWN)]
    for rubric in rubrics:
        turns = [t for t in landed if t.call.name in rubric.tools]
        if not turns:
            continue
        problems = [(t, p) for t in turns if (p := rubric.problem(world, t)) is not None]
        yield CheckResult(
            name=f"content.{domain}.{rubric.short}",
            kind="content",
            passed=not problems,
            explanation=(
                rubric.held
                if not problems
                else f"{problems[0][0].call.name} (call {problems[0][0].call.call_id}): {problems[0][1]}"
            ),
        )
