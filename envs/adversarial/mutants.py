"""Mutation operators over gold trajectories, and the mutants of a task.

A mutant is a gold trajectory with one realistic mistake in it: a step dropped, a write sent twice
or before the reads, or (per domain) an argument of a write call altered the way people get it
wrong. Operators are plain, deterministic functions, so the same task always gives the same
mutants. A domain's descriptor adds its own operators (`DomainDescriptor.mutants`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from envs.adversarial.operator import Calls, MutationContext, Operator, label, renamed
from envs.adversarial.targets import gold_trajectories
from envs.domain import DOMAINS, Domain
from schemas.tasks import Task
from schemas.tools import SideEffect


@dataclass(frozen=True)
class Mutant:
    """One mutated trajectory."""

    operator: str
    description: str
    calls: Calls
    source: str = "gold"
    """Which gold trajectory it came from (`gold`, `alternative 1`, ...)."""


def drop_step(ctx: MutationContext, calls: Calls) -> Iterator[tuple[str, Calls]]:
    for i, call in enumerate(calls):
        yield f"dropped {label(i, call)}", calls[:i] + calls[i + 1 :]


def duplicate_write(ctx: MutationContext, calls: Calls) -> Iterator[tuple[str, Calls]]:
    for i, call in enumerate(calls):
        if ctx.is_write(call):
            yield f"sent {label(i, call)} twice", (*calls[: i + 1], renamed(call, "dup"), *calls[i + 1 :])


def write_first(ctx: MutationContext, calls: Calls) -> Iterator[tuple[str, Calls]]:
    for i, call in enumerate(calls):
        if ctx.is_write(call) and any(not ctx.is_write(c) for c in calls[:i]):
            yield f"moved {label(i, call)} before the reads", (call, *calls[:i], *calls[i + 1 :])


def swap_writes(ctx: MutationContext, calls: Calls) -> Iterator[tuple[str, Calls]]:
    writes = [i for i, call in enumerate(calls) if ctx.is_write(call)]
    for a, b in itertools.pairwise(writes):
        swapped = list(calls)
        swapped[a], swapped[b] = calls[b], calls[a]
        yield f"swapped {label(a, calls[a])} and {label(b, calls[b])}", tuple(swapped)


GENERIC_OPERATORS: tuple[Operator, ...] = (
    Operator("drop_step", "drop one step", drop_step),
    Operator("duplicate_write", "send one write twice", duplicate_write),
    Operator("write_first", "move a write before the reads", write_first),
    Operator("swap_writes", "swap two consecutive writes", swap_writes),
)
"""Operators every domain gets."""


def domain_operators(domain: str) -> tuple[Operator, ...]:
    """The generic operators plus the domain's own."""
    return GENERIC_OPERATORS + DOMAINS.get(domain).mutants


def write_tools(domain: Domain) -> frozenset[str]:
    """The domain's tools that change the world."""
    return frozenset(spec.name for spec in domain.tool_specs() if spec.side_effect is not SideEffect.READ)


def _key(calls: Calls) -> str:
    # Two mutants are the same when they make the same calls; call ids do not matter.
    return json.dumps([[c.name, c.arguments] for c in calls], sort_keys=True, default=str)


def mutants_of(task: Task, domain: Domain, operators: Sequence[Operator]) -> list[Mutant]:
    """Every distinct mutant of every gold trajectory of `task`; none equals a gold trajectory."""
    ctx = MutationContext(task=task, writes=write_tools(domain))
    golds = gold_trajectories(task)
    seen = {_key(calls) for _, calls in golds}
    out: list[Mutant] = []
    for source, calls in golds:
        for operator in operators:
            for description, mutated in operator.apply(ctx, calls):
                key = _key(mutated)
                if key in seen:
                    continue
                seen.add(key)
                out.append(Mutant(operator.name, description, mutated, source))
    return out
