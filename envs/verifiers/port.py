"""The verifier port: what scores a trajectory against a task (`envs.verifiers.base` gates the score
and finds verifiers by name)."""

from __future__ import annotations

from typing import Protocol

from envs.contract import Trajectory
from schemas.tasks import Task
from schemas.verdicts import Verdict


class Verifier(Protocol):
    """Scores a trajectory against a task."""

    @property
    def name(self) -> str:
        """Name and version, e.g. `rcm.v1`, as in `VerifierSpec.verifier`."""
        ...

    def score(self, task: Task, trajectory: Trajectory) -> Verdict:
        """The verdict, with every check named and explained."""
        ...
