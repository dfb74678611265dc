"""`StandardVerifier`: outcome checks, the generic process checks, and a domain's own rules.

Outcome checks come either from the task's outcome spec (`outcome="spec"`: assertions over the
domain's outcome facts) or from comparing the final world with the gold trajectory's
(`outcome="gold_world"`, tau2-bench's way, kept for the verifiers that predate specs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from envs.contract import Trajectory
from envs.domain import DOMAINS, Domain, DomainRegistry
from envs.verifiers.base import ProcessRule, make_verdict
from envs.verifiers.evidence import evidence_checks
from envs.verifiers.outcome import outcome_checks
from envs.verifiers.process import escalation_check, forbidden_checks, required_checks
from envs.verifiers.spec import spec_checks
from schemas.tasks import Task
from schemas.verdicts import CheckResult, Verdict


@dataclass(frozen=True)
class StandardVerifier:
    """The verifier every domain starts from; a domain adds process rules, not a new scorer."""

    name: str
    """Name and version, e.g. `rcm.v1`."""
    domain: str
    """The domain whose environment replays the gold solution."""
    rules: Sequence[ProcessRule] = ()
    """Domain rules (process, content, or outcome facts about the trajectory), evaluated after the
    generic checks."""
    outcome: Literal["gold_world", "spec"] = "gold_world"
    """Where the outcome checks come from: the gold's final world, or the task's outcome spec."""
    evidence: bool = False
    """Whether the task's deciding facts must have been read before the writes they decide
    (`envs.verifiers.evidence`)."""
    domains: DomainRegistry = field(default=DOMAINS, compare=False, repr=False)

    def checks(self, task: Task, trajectory: Trajectory) -> list[CheckResult]:
        """Every check, outcome first, in a stable order."""
        if task.verifier.verifier != self.name:
            raise ValueError(
                f"task {task.task_id} names verifier {task.verifier.verifier!r}, not {self.name!r}"
            )
        domain = self.domains.get(self.domain)
        checks = (
            self.spec_outcome(domain, task, trajectory)
            if self.outcome == "spec"
            else outcome_checks(task, trajectory, domains=self.domains)
        )
        checks.extend(required_checks(domain, task, trajectory))
        checks.extend(forbidden_checks(domain, task, trajectory))
        if task.verifier.must_escalate is not None and (
            domain.escalation_tools or task.verifier.must_escalate
        ):
            checks.append(escalation_check(domain, task, trajectory))
        if self.evidence:
            checks.extend(evidence_checks(domain, task, trajectory))
        for rule in self.rules:
            checks.extend(rule(task, trajectory))
        return checks

    @staticmethod
    def spec_outcome(domain: Domain, task: Task, trajectory: Trajectory) -> list[CheckResult]:
        spec = task.verifier.outcome
        if spec is None:
            return [
                CheckResult(
                    name="outcome.spec",
                    kind="outcome",
                    passed=False,
                    explanation="the task has no outcome spec, so no outcome can be verified",
                )
            ]
        return spec_checks(spec, domain.outcome_facts(task.initial_world, trajectory.final_world))

    def score(self, task: Task, trajectory: Trajectory) -> Verdict:
        """The gated score over every check (see `envs.verifiers.base`)."""
        return make_verdict(self.name, self.checks(task, trajectory))
