"""What the verifier card runs for each domain: its generated task sets, expert set, reference
policy, the verifiers it compares and the one admitted for training.

The composition root names the domains; `build_card(domain=...)` looks them up here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from envs.rollout.policy import Policy
from schemas.tasks import Task
from schemas.tools import ToolCall


class Labelled(Protocol):
    """A named gold or wrong trajectory of an expert case."""

    @property
    def name(self) -> str: ...

    def tool_calls(self) -> tuple[ToolCall, ...]: ...


class ExpertLike(Protocol):
    """An expert case, whatever its domain."""

    @property
    def id(self) -> str: ...

    @property
    def golds(self) -> Sequence[Any]: ...

    @property
    def wrong_moves(self) -> Sequence[Any]: ...

    def task(self) -> Task: ...


@dataclass(frozen=True)
class Sizes:
    """How large the generated task sets are."""

    seed: int = 0
    per_carc: int = 19
    per_kind: int = 8
    queues: int = 48
    per_recipe: int = 25


@dataclass(frozen=True)
class CardDomain:
    """One domain's inputs to the card."""

    admitted: str
    verifiers: tuple[str, ...]
    task_sets: Callable[[Sizes], list[tuple[str, list[Task]]]]
    expert_cases: Callable[[], Sequence[ExpertLike]]
    reference: Callable[[], Policy]
    task_problems: Callable[[Task], list[str]] = lambda task: []


def _rcm_sets(s: Sizes) -> list[tuple[str, list[Task]]]:
    from envs.rcm.tasks import generate_base, generate_edge, generate_queue

    return [
        ("rcm-base", generate_base(s.seed, s.per_carc)),
        ("rcm-edge", generate_edge(s.seed, s.per_kind)),
        ("rcm-queue", generate_queue(s.seed, s.queues)),
    ]


def _rcm_cases() -> Sequence[ExpertLike]:
    from envs.rcm.expert import load_expert_cases

    return load_expert_cases()


def _rcm_reference() -> Policy:
    from envs.rcm.solver import REFERENCE

    return REFERENCE


def _rcm_problems(task: Task) -> list[str]:
    from envs.rcm.x12check import remittance_problems

    return list(remittance_problems(task))


def _credit_sets(s: Sizes) -> list[tuple[str, list[Task]]]:
    from envs.credit.tasks import generate_base, generate_edge

    return [
        ("credit-base", generate_base(s.seed, s.per_recipe)),
        ("credit-edge", generate_edge(s.seed, s.per_kind)),
    ]


def _credit_cases() -> Sequence[ExpertLike]:
    from envs.credit.expert import load_expert_cases

    return load_expert_cases()


def _credit_reference() -> Policy:
    from envs.credit.solver import REFERENCE

    return REFERENCE


CARD_DOMAINS: dict[str, CardDomain] = {
    "rcm": CardDomain("rcm.v2", ("rcm.v1", "rcm.v2"), _rcm_sets, _rcm_cases, _rcm_reference, _rcm_problems),
    "credit": CardDomain("credit.v1", ("credit.v1",), _credit_sets, _credit_cases, _credit_reference),
}
"""The domains the card knows, by name."""
