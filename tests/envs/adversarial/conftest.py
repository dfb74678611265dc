"""Fixtures for the adversarial tests: toy tasks, and a weak toy verifier that ignores money."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

import envs.toy as toy
from envs.contract import Trajectory
from envs.verifiers.base import VERIFIERS, make_verdict
from envs.verifiers.standard import StandardVerifier
from schemas.tasks import Task
from schemas.verdicts import Verdict


@dataclass(frozen=True)
class IgnoresRefunds:
    """toy.v1's checks without the outcome check of the refunded amount: a verifier that forgot an
    assertion."""

    name: str = "toy.weak"

    def score(self, task: Task, trajectory: Trajectory) -> Verdict:
        checks = StandardVerifier(name=self.name, domain="toy", rules=(toy.read_before_write,)).checks(
            task, trajectory
        )
        return make_verdict(self.name, [c for c in checks if not c.name.endswith(".refunded")])


WEAK = IgnoresRefunds()
VERIFIERS.register(WEAK)


@pytest.fixture(scope="session")
def toy_set() -> list[Task]:
    """Eight toy tasks, refunds and escalations."""
    return toy.make_tasks(8, seed=3)


@pytest.fixture
def refund(toy_set: Sequence[Task]) -> Task:
    """A toy task resolved by a refund and a close."""
    return next(t for t in toy_set if "kind:refund" in t.tags)
