"""Scripts as stateless policies: a generator yields tool calls and receives their results, and is
replayed from the start over the turns so far on every step (same item, same results, same calls).
Each domain's desk (`envs.<domain>.desk`) writes its reference and baseline scripts this way."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from envs.contract import Action, Finish, Turn
from schemas.tasks import WorkItem
from schemas.tools import ToolCall, ToolResult

Script = Generator[ToolCall, ToolResult, Any]
"""Yields calls, receives results, returns whatever it found."""


def replay_script(script: Script, turns: tuple[Turn, ...], done: str) -> Action:
    """Replay a fresh script over the turns so far and return its next call, or `Finish` with
    `done` when the script has no more calls."""
    try:
        call = next(script)
        for turn in turns:
            if turn.call != call:
                return Finish(message="the episode diverged from my plan; stopping")
            call = script.send(turn.result)
    except StopIteration:
        return Finish(message=done)
    return call


@dataclass(frozen=True)
class ScriptPlan:
    """A plan (work item, turns → action) from a script factory, `script(work_item, *args)`;
    picklable when `script` is a module-level function."""

    script: Callable[..., Script]
    done: str
    """The closing message once the script has no more calls."""
    args: tuple[Any, ...] = ()

    def __call__(self, work_item: WorkItem, turns: tuple[Turn, ...]) -> Action:
        return replay_script(self.script(work_item, *self.args), turns, self.done)
