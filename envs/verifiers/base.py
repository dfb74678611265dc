"""The verifier port, the gated score, and verifiers by name.

Scoring (docs/envs.md, "Scoring"): outcome and content checks gate the score. If any of them fails
the score is 0, whatever the process looked like, so doing nothing (or doing the wrong thing
politely, or the right thing with a letter that argues nothing) earns nothing. Once they all hold,
the score is `OUTCOME_SHARE` plus the rest in proportion to the weight of the process checks that
held; `passed` only when every check held (score 1.0).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence

from envs.contract import Trajectory
from envs.domain import DOMAINS, DomainRegistry
from envs.verifiers.port import Verifier as Verifier  # re-exported: callers name the port here
from schemas.tasks import Task
from schemas.verdicts import CheckResult, Verdict

OUTCOME_SHARE = 0.5
"""Share of the score earned by a right outcome with every process check failed."""

ProcessRule = Callable[[Task, Trajectory], Iterable[CheckResult]]
"""A domain's process rule: named, explained checks over the task and the trajectory."""


def gated_score(checks: Sequence[CheckResult]) -> float:
    """0 unless every outcome and content check held; then OUTCOME_SHARE plus the weighted process
    share."""
    outcome = [c for c in checks if c.kind == "outcome"]
    content = [c for c in checks if c.kind == "content"]
    process = [c for c in checks if c.kind == "process"]
    if not outcome or not all(c.passed for c in (*outcome, *content)):
        # No outcome check at all means nothing ties the score to the world: refuse to reward it.
        return 0.0
    total = sum(c.weight for c in process)
    if total == 0:
        return 1.0
    held = sum(c.weight for c in process if c.passed)
    return OUTCOME_SHARE + (1.0 - OUTCOME_SHARE) * held / total


def make_verdict(verifier: str, checks: Sequence[CheckResult]) -> Verdict:
    """A verdict whose `passed` means exactly "every check held"."""
    score = gated_score(checks)
    passed = bool(checks) and all(c.passed for c in checks) and score == 1.0
    return Verdict(verifier=verifier, score=score, passed=passed, checks=tuple(checks))


class UnknownVerifier(KeyError):
    """No verifier of that name is registered or offered by its domain."""


class VerifierRegistry:
    """Verifiers by name: `rcm.v1` is one the `rcm` domain's descriptor offers; a test may register
    more in-process."""

    def __init__(self, domains: DomainRegistry = DOMAINS) -> None:
        self._domains = domains
        self._verifiers: dict[str, Verifier] = {}
        self._lock = threading.Lock()

    def register(self, verifier: Verifier) -> Verifier:
        """Add a verifier; a name is bound once."""
        with self._lock:
            known = self._verifiers.get(verifier.name)
            if known is not None and known is not verifier:
                raise ValueError(f"verifier {verifier.name!r} is already registered")
            self._verifiers[verifier.name] = verifier
        return verifier

    def get(self, name: str) -> Verifier:
        """The verifier called `name`."""
        domain = name.split(".", 1)[0]
        if name not in self._verifiers and domain in self._domains.names():
            for verifier in self._domains.get(domain).verifiers:
                self._verifiers.setdefault(verifier.name, verifier)
        try:
            return self._verifiers[name]
        except KeyError:
            known = ", ".join(sorted(self._verifiers)) or "(none loaded)"
            raise UnknownVerifier(f"no verifier {name!r}; loaded: {known}") from None

    def names(self) -> list[str]:
        """Names of the verifiers loaded so far."""
        return sorted(self._verifiers)


VERIFIERS = VerifierRegistry()
"""The process-wide verifier registry."""


def score_task(task: Task, trajectory: Trajectory, registry: VerifierRegistry = VERIFIERS) -> Verdict:
    """Score with the verifier the task names."""
    return registry.get(task.verifier.verifier).score(task, trajectory)
