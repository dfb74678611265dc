"""What a mutation operator is: a named, deterministic function from a gold trajectory to mutants,
with the context it may look at. The generic operators and a task's mutants are
`envs.adversarial.mutants`; a domain's descriptor adds its own operators."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from schemas.tasks import Task
from schemas.tools import ToolCall

Calls = tuple[ToolCall, ...]


@dataclass(frozen=True)
class MutationContext:
    """What an operator may look at: the task (its initial world) and which tools write."""

    task: Task
    writes: frozenset[str]

    def is_write(self, call: ToolCall) -> bool:
        """Whether the call changes the world."""
        return call.name in self.writes


Apply = Callable[[MutationContext, Calls], Iterator[tuple[str, Calls]]]
"""An operator's logic: (context, calls) → (description, mutated calls) for each mutant."""


@dataclass(frozen=True)
class Operator:
    """A named mutation operator; picklable when `apply` is a module-level function."""

    name: str
    summary: str
    apply: Apply


def label(index: int, call: ToolCall) -> str:
    """`call 3 (post_write_off)`, 1-based, for descriptions."""
    return f"call {index + 1} ({call.name})"


def renamed(call: ToolCall, suffix: str) -> ToolCall:
    """The same call under a new call id."""
    return call.model_copy(update={"call_id": f"{call.call_id}-{suffix}"})
