"""`StandardVerifier`: outcome checks, the generic process checks, and a domain's own rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from envs.contract import Trajectory
from envs.domain import DOMAINS, DomainRegistry
from envs.verifiers.base import ProcessRule, make_verdict
from envs.verifiers.outcome import outcome_checks
from envs.verifiers.process import escalation_check, forbidden_checks, required_checks
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
    """Domain process rules, evaluated after the generic checks."""
    domains: DomainRegistry = field(default=DOMAINS, compare=False, repr=False)

    def checks(self, task: Task, trajectory: Trajectory) -> list[CheckResult]:
        """Every check, outcome first, in a stable order."""
        if task.verifier.verifier != self.name:
            raise ValueError(
                f"task {task.task_id} names verifier {task.verifier.verifier!r}, not {self.name!r}"
            )
        domain = self.domains.get(self.domain)
        checks = outcome_checks(task, trajectory, domains=self.domains)
        checks.extend(required_checks(domain, task, trajectory))
        checks.extend(forbidden_checks(domain, task, trajectory))
        if domain.escalation_tools or task.verifier.must_escalate:
            checks.append(escalation_check(domain, task, trajectory))
        for rule in self.rules:
            checks.extend(rule(task, trajectory))
        return checks

    def score(self, task: Task, trajectory: Trajectory) -> Verdict:
        """The gated score over every check (see `envs.verifiers.base`)."""
        return make_verdict(self.name, self.checks(task, trajectory))
